"""What a ``%%hpsearch`` cell does when its search's name is taken: the most common action in a
notebook is running the same cell again.

With the same spec (compared parsed, not as text) and objective, the cell re-attaches to the
stored search, live or finished, and shows its dashboard: no new trial starts. With a changed
spec, the cell stops with a message naming each changed field and the ways on.

Example:
    >>> old = {"trials": 20, "parameters": {"lr": {"min": 0.001, "max": 0.1}}}
    >>> new = {"trials": 40, "parameters": {"lr": {"min": 0.001, "max": 1.0}}}
    >>> spec_changes(old, new)
    ['trials: 20 → 40', 'parameters.lr.max: 0.1 → 1.0']
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from hpnb.core.trial import ExperimentState
from hpnb.jupyter import live
from hpnb.jupyter.namespace import stored_objective_name, variable_name

if TYPE_CHECKING:
    from hpnb.api import Search, StoreLike
    from hpnb.core.spec import ExperimentSpec

_UNSET = object()
#: top-level spec fields that do not make another search (the name is what matched)
_NOT_COMPARED = ("name",)


def spec_changes(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``field: old → new`` for each field that differs, nested fields as dotted paths."""
    changes = []
    keys = [*new, *(key for key in old if key not in new)]
    for key in keys:
        path = f"{prefix}{key}"
        if path in _NOT_COMPARED:
            continue
        before, after = old.get(key, _UNSET), new.get(key, _UNSET)
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            changes += spec_changes(before, after, f"{path}.")
        elif before != after:
            changes.append(f"{path}: {_shown(before)} → {_shown(after)}")
    return changes


def _shown(value: Any) -> str:
    if value is _UNSET or value is None:
        return "(not set)"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def cell_changes(record: Any, spec: ExperimentSpec, objective_name: str) -> list[str]:
    """How the cell differs from the stored search ``record``: objective first, then the spec."""
    from hpnb.core.errors import SpecError
    from hpnb.core.spec import parse_spec

    changes = []
    stored_objective = stored_objective_name(record)
    if stored_objective is not None and stored_objective != objective_name:
        changes.append(f"objective: {stored_objective} → {objective_name}")
    try:
        stored = parse_spec(dict(record.spec)).to_dict()
    except SpecError:  # written by another version of hpnb: compare what is stored
        stored = dict(record.spec)
    return changes + spec_changes(stored, spec.to_dict())


def rerun_cell(name: str, spec: ExperimentSpec, objective_name: str, *, store: StoreLike,
               namespace: MutableMapping[str, Any], out: str | None, wait: bool) -> Search:
    """Re-attach to the stored search ``name`` when the cell asks for the same search.

    Raises:
        UsageError: the cell's spec or objective differ; the message names each change and
            offers ``--resume``, ``--overwrite`` or another ``--name``.
    """
    from hpnb.jupyter.show import open_search, resume_from_namespace

    search = open_search(name, store)
    changes = cell_changes(search.record, spec, objective_name)
    if changes:
        raise UsageError(
            f"an experiment named {name!r} already exists with another spec ({', '.join(changes)}): "
            "add --resume to continue the stored one, --overwrite to replace it, or choose another --name"
        )
    out = out or variable_name(name)
    namespace[out] = search
    live.display_search(search, wait=wait, announce=_announce(search, out),
                        resume=lambda: resume_from_namespace(search, store))
    return search


def _announce(search: Search, out: str) -> str:
    state = search.state
    if search.is_live:
        return f"{search.name!r} runs already with this spec: its dashboard again, handle in {out!r}"
    if state == ExperimentState.RUNNING:
        return f"{search.name!r} runs in another process with this spec: its dashboard, handle in {out!r}"
    ways = "--overwrite runs it anew"
    if state != ExperimentState.COMPLETED:
        ways = f"--resume continues it, {ways}"
    return (f"{search.name!r} ran already with this spec ({state}): its dashboard again, "
            f"handle in {out!r}; {ways}")
