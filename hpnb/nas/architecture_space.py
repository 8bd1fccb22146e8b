"""The architecture space of a ``nas:`` section, checked: the cells' depth, the operations of an
edge (Katib's vocabulary, :mod:`hpnb.core.interop.katib_nas`) and DARTS's settings.

Example:
    >>> section = parse_nas({"layers": 3, "nodes": 2, "operations": ["max_pooling_3x3", "skip_connection"]})
    >>> section.operations, section.settings["num_nodes"]
    (('max_pooling_3x3', 'skip_connection'), 2)
    >>> parse_nas({"layers": 3, "operations": [{"type": "max_pooling", "filter_sizes": [5]}]})
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    hpnb.core.errors.SpecError: nas.operations[0].filter_sizes: max_pooling has no form with
    filter size 5 (got 5); allowed: 3
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.spec.values import as_int, as_mapping, check_keys
from hpnb.nas.settings import darts_settings
from hpnb.nas.vocabulary import ALIASES, ALL_NAMES, OPERATION_TYPES, canonical_name, operation_name

#: the fields of ``nas:``.
FIELDS = ("layers", "nodes", "operations", "darts")
_OPERATION = "an operation type of Katib's (with filter_sizes), or a genotype's operation name"


@dataclass(frozen=True)
class NasSection:
    """A checked ``nas:`` section: the cells' depth, the operations of an edge, DARTS's settings."""

    layers: int
    operations: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)


def parse_nas(data: Any, path: str = "nas") -> NasSection:
    """Check a ``nas:`` section; one SpecError naming the field (``nas.operations[2]``) if wrong."""
    data = as_mapping(data, path, allowed="a mapping of " + ", ".join(FIELDS))
    check_keys(data, path, FIELDS)
    if "layers" not in data:
        raise SpecError(f"{path}.layers", "is missing: how many cells the network stacks",
                        allowed="layers: a whole number >= 1 (Katib's graphConfig.numLayers)")
    layers = as_int(data["layers"], f"{path}.layers", minimum=1)
    darts = as_mapping(data.get("darts") or {}, f"{path}.darts", allowed="DARTS settings by name")
    settings = darts_settings(darts, f"{path}.darts")
    if "nodes" in data:
        nodes = as_int(data["nodes"], f"{path}.nodes", minimum=1)
        if "num_nodes" in darts and settings["num_nodes"] != nodes:
            raise SpecError(f"{path}.darts.num_nodes", f"says {settings['num_nodes']} nodes and nas.nodes "
                            f"{nodes}", value=darts["num_nodes"], allowed="one of them, or the same number")
        settings["num_nodes"] = nodes
    operations = parse_operations(data.get("operations"), f"{path}.operations")
    return NasSection(layers, operations, settings)


def parse_operations(value: Any, path: str) -> tuple[str, ...]:
    """The genotype names of the operations a ``nas.operations`` list gives (every one by default)."""
    if value is None:
        return ALL_NAMES
    if not isinstance(value, list) or not value:
        raise SpecError(path, "must be a non-empty list of operations", value=value, allowed=_OPERATION)
    names: list[str] = []
    for index, item in enumerate(value):
        for name in _operation(item, f"{path}[{index}]"):
            if name in names:
                raise SpecError(f"{path}[{index}]", "gives an operation twice", value=name,
                                allowed="each operation once")
            names.append(name)
    return tuple(names)


def _operation(item: Any, path: str) -> tuple[str, ...]:
    if isinstance(item, str):
        name = canonical_name(item)
        if name in ALL_NAMES:
            return (name,)
        if name in OPERATION_TYPES:  # a type alone: every filter size it has
            return tuple(operation_name(name, s) for s in OPERATION_TYPES[name]) or (name,)
        known = (*OPERATION_TYPES, *ALL_NAMES, *ALIASES)
        raise SpecError(path, "is not an operation Katib knows", value=item,
                        allowed=(*OPERATION_TYPES, *ALL_NAMES), suggestion=closest(item, known))
    item = as_mapping(item, path, allowed="{type: OPERATION_TYPE, filter_sizes: [3, 5]}")
    check_keys(item, path, ("type", "filter_sizes", "filter_size"))
    kind = item.get("type")
    if kind not in OPERATION_TYPES:
        raise SpecError(f"{path}.type", "is not an operation type Katib knows", value=kind,
                        allowed=tuple(OPERATION_TYPES), suggestion=closest(str(kind), tuple(OPERATION_TYPES)))
    key = "filter_sizes" if "filter_sizes" in item else "filter_size"
    sizes = item.get(key)
    forms = OPERATION_TYPES[kind]
    if sizes is None:
        return tuple(operation_name(kind, s) for s in forms) or (kind,)
    if not forms:
        raise SpecError(f"{path}.{key}", f"{kind} takes no filter size", value=sizes,
                        allowed="no filter_sizes")
    listed = sizes if isinstance(sizes, list) else [sizes]
    names = []
    for size in listed:
        number = as_int(size, f"{path}.{key}", minimum=1)
        if number not in forms:
            raise SpecError(f"{path}.{key}", f"{kind} has no form with filter size {number}", value=size,
                            allowed=", ".join(map(str, forms)))
        names.append(operation_name(kind, number))
    return tuple(names)
