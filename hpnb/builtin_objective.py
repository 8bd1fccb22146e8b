"""The objective of a search whose spec declares a built-in one (a ``nas:`` or ``llm:`` section):
made by the section's room, which also adds the search parameters the section declares.

A room that provides a section has a module ``section`` with
``prepare(spec, given) -> (spec, objective)``: it checks the section's fields (a
:class:`SpecError` naming the field), returns the spec with the parameters it declares (the same
spec when it already has them, as a stored one does) and the objective its trials run. ``given``
is the function the user named, or None (the ``llm:`` section needs none; the ``nas:`` section
takes the function that returns the data).

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec, objective = prepared(parse_spec({"metric": "loss"}), print)
    >>> objective is print
    True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.spec import ExperimentSpec
from hpnb.core.spec.yaml_lines import line_of

#: the module that prepares each section's search.
PREPARERS = {"nas": "hpnb.nas.section", "llm": "hpnb.llm.section"}


def prepared(spec: ExperimentSpec, given: Callable[..., Any] | None,
             source: str | None = None) -> tuple[ExperimentSpec, Callable[..., Any]]:
    """The spec to run and its objective: ``given`` for a plain spec, else what the section's room
    makes. ``source`` (the spec's YAML, when it was text) gives a section's errors their line."""
    if spec.section is None:
        if given is None:
            raise HpnbError("give the objective: the function each trial runs (or a spec with a "
                            "built-in objective's section: nas: or llm:)")
        return spec, given
    room = importlib.import_module(PREPARERS[spec.section.kind])
    try:
        made: tuple[ExperimentSpec, Callable[..., Any]] = room.prepare(spec, given)
    except SpecError as err:
        raise err.with_line(line_of(source, err.path)) from None
    return made
