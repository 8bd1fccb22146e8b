"""Katib's operation vocabulary: the operation types of a ``nas:`` section, the filter sizes each
has a form for, and the names a genotype gives the operations.

Katib writes an operation of a genotype as its type and filter size (``separable_convolution_3x3``);
the DARTS paper's code writes the short names (``sep_conv_3x3``), which are read as aliases.

Example:
    >>> operation_names([("separable_convolution", (3, 5)), ("skip_connection", ())])
    ('separable_convolution_3x3', 'separable_convolution_5x5', 'skip_connection')
    >>> canonical_name("max_pool_3x3")
    'max_pooling_3x3'
"""

from __future__ import annotations

from collections.abc import Iterable

from hpnb.core.interop.katib_nas import DARTS_NAMES as ALIASES
from hpnb.core.interop.katib_nas import OPERATION_TYPES

#: the operation every edge of a supernet has besides the chosen ones (never in a genotype).
NONE = "none"
SKIP = "skip_connection"
__all__ = ["ALIASES", "ALL_NAMES", "NONE", "OPERATION_TYPES", "SKIP", "canonical_name", "operation_names"]


def operation_name(kind: str, size: int | None) -> str:
    """The genotype's name of an operation type with its filter size (``max_pooling_3x3``)."""
    return kind if size is None else f"{kind}_{size}x{size}"


def operation_names(operations: Iterable[tuple[str, tuple[int, ...]]]) -> tuple[str, ...]:
    """Every genotype name of ``(type, filter sizes)`` pairs, in order."""
    names: list[str] = []
    for kind, sizes in operations:
        names.extend(operation_name(kind, size) for size in sizes) if sizes else names.append(kind)
    return tuple(names)


#: every name a genotype may hold (Katib's), each operation type with each of its filter sizes.
ALL_NAMES: tuple[str, ...] = operation_names(OPERATION_TYPES.items())


def canonical_name(name: str) -> str:
    """Katib's name of an operation given by Katib's or the DARTS paper's name."""
    return ALIASES.get(name, name)
