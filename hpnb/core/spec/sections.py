"""A built-in objective's section of the spec: ``nas:`` (architecture search, :mod:`hpnb.nas`) or
``llm:`` (fine-tuning a language model, :mod:`hpnb.llm`).

The core keeps the section as written and checks only its shape; the room it names checks its
fields, adds the search parameters it declares and makes the objective, at the front door
(:mod:`hpnb.builtin_objective`), where torch and its family may be imported.

Example:
    >>> parse_section({"metric": "eval_loss", "llm": {"model": "./tiny"}}).kind
    'llm'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.frozen import freeze, thaw

#: the sections that declare a built-in objective, with what each is for.
SECTIONS: dict[str, str] = {
    "nas": "an architecture search (layers, nodes, operations)",
    "llm": "fine-tuning a language model (model, dataset, training, lora)",
}

#: the objective of a section whose spec names no metric: what its trials report, and its mode.
DEFAULT_GOALS: dict[str, tuple[str, str]] = {"nas": ("Validation-Accuracy", "max"),
                                             "llm": ("eval_loss", "min")}


@dataclass(frozen=True)
class Section:
    """One built-in objective's section: its key (``kind``) and its fields, frozen."""

    kind: str
    fields: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {self.kind: thaw(self.fields)}


def parse_section(data: Mapping[str, Any]) -> Section | None:
    """The spec's built-in objective section, if it has one (at most one; a mapping)."""
    given = [key for key in SECTIONS if data.get(key) is not None]
    if len(given) > 1:
        raise SpecError(given[1], f"give one built-in objective's section, not both {given[0]}: and "
                        f"{given[1]}:", allowed=", ".join(f"{key}: {what}" for key, what in SECTIONS.items()))
    if not given:
        return None
    kind = given[0]
    fields = data[kind]
    if not isinstance(fields, Mapping):
        raise SpecError(kind, f"must be a mapping of fields: {SECTIONS[kind]}", value=fields)
    return Section(kind, freeze(dict(fields)))
