"""The objectives of a spec: ``metric:`` and ``mode:``, or ``metrics:`` for several.

The same concept as :mod:`hpnb.core.objectives`, on the spec's side: this module reads the
:class:`~hpnb.core.objectives.Objective` values that one defines.

Forms accepted:

- one objective: ``metric: val_loss`` and ``mode: min`` (``min`` when left out);
- several, the long form: ``metrics: [{name: val_loss, mode: min}, {name: latency_ms, mode: min}]``;
- several, the short form: ``metrics: {val_loss: min, latency_ms: min}`` (in this order), or a list
  of one-key mappings (``- val_loss: min``).

With several objectives each names its own mode (none is assumed). A ``metrics:`` of one entry
is the same search as ``metric:`` and ``mode:``.

Example:
    >>> parse_objectives({"metrics": {"val_loss": "min", "accuracy": "maximize"}})
    (Objective(name='val_loss', mode='min'), Objective(name='accuracy', mode='max'))
    >>> parse_objectives({"metric": "loss"})
    (Objective(name='loss', mode='min'),)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.objectives import Mode, Objective
from hpnb.core.spec.sections import DEFAULT_GOALS
from hpnb.core.spec.values import as_mapping, as_text, check_keys, choose

MODES: dict[str, Mode] = {"min": "min", "max": "max", "minimize": "min", "maximize": "max"}
#: the most objectives a search may have.
MAX_OBJECTIVES = 16
_LONG_FORM = "{name: METRIC, mode: min|max}"
_FORMS = f"a list of {_LONG_FORM}, or a mapping METRIC: min|max"


def parse_objectives(data: Mapping[str, Any]) -> tuple[Objective, ...]:
    """The objectives of a spec's top-level mapping ``data`` (``metric``/``mode`` or ``metrics``)."""
    if data.get("metrics") is None:
        return (_single(data),)
    if data.get("metric") is not None:
        raise SpecError("metrics", "give either metric: (one objective) or metrics: (several), not both",
                        allowed="metric: NAME with mode:, or metrics: " + _FORMS)
    if data.get("mode") is not None:
        raise SpecError("mode", "with metrics:, each metric names its own mode", value=data["mode"],
                        allowed=f"metrics: [{_LONG_FORM}, ...]")
    objectives = _several(data["metrics"])
    _check_unique(objectives)
    return objectives


def _single(data: Mapping[str, Any]) -> Objective:
    defaults = [goal for kind, goal in DEFAULT_GOALS.items() if data.get(kind) is not None]
    if data.get("metric") is None and defaults:  # a built-in objective's own metric
        metric, mode = defaults[0]
        return Objective(metric, MODES[choose(data.get("mode", mode), "mode", MODES, "mode")])
    if data.get("metric") is None:
        raise SpecError("metric", "is missing: name the metric to optimise",
                        allowed="metric: followed by a name your function returns, e.g. val_loss "
                                "(or metrics: for several objectives)")
    metric = as_text(data["metric"], "metric", allowed="the name of a metric, e.g. val_loss")
    return Objective(metric, MODES[choose(data.get("mode", "min"), "mode", MODES, "mode")])


def _several(value: Any) -> tuple[Objective, ...]:
    entries: list[tuple[str, Mapping[str, Any], str]]
    if isinstance(value, Mapping):
        entries = [(f"metrics.{name}", {"name": name, "mode": mode}, f"metrics.{name}")
                   for name, mode in as_mapping(value, "metrics", allowed=_FORMS).items()]
    elif isinstance(value, list):
        paths = [f"metrics[{index}]" for index in range(len(value))]
        entries = [(at, _entry(item, at), f"{at}.mode") for at, item in zip(paths, value, strict=True)]
    else:
        raise SpecError("metrics", "must be a list or a mapping of objectives", value=value, allowed=_FORMS)
    if not entries:
        raise SpecError("metrics", "is empty: name at least one metric", allowed=_FORMS)
    if len(entries) > MAX_OBJECTIVES:
        raise SpecError("metrics", f"has {len(entries)} objectives, more than the limit of "
                        f"{MAX_OBJECTIVES} (MAX_OBJECTIVES)", allowed=f"at most {MAX_OBJECTIVES} metrics")
    return tuple(_objective(entry, path, mode_path) for path, entry, mode_path in entries)


def _entry(item: Any, path: str) -> Mapping[str, Any]:
    """A list item: ``{name: ..., mode: ...}``, or ``{METRIC: MODE}``."""
    if isinstance(item, str):
        raise SpecError(f"{path}.mode", f"is missing: say whether {item!r} is minimised or maximised",
                        value=item, allowed=f"{{name: {item}, mode: min|max}} or {{{item}: min|max}}")
    item = as_mapping(item, path, allowed=_LONG_FORM)
    if "name" not in item and len(item) == 1:
        name, mode = next(iter(item.items()))
        return {"name": name, "mode": mode}
    check_keys(item, path, ("name", "mode"))
    return item


def _objective(entry: Mapping[str, Any], path: str, mode_path: str) -> Objective:
    if "name" not in entry:
        raise SpecError(f"{path}.name", "is missing: name the metric", allowed=_LONG_FORM)
    name = as_text(entry["name"], f"{path}.name", allowed="the name of a metric your function returns")
    if entry.get("mode") is None:
        raise SpecError(mode_path, f"is missing: say whether {name!r} is minimised or maximised",
                        allowed=("min", "max"))
    return Objective(name, MODES[choose(entry["mode"], mode_path, MODES, "mode")])


def _check_unique(objectives: tuple[Objective, ...]) -> None:
    seen: set[str] = set()
    for index, objective in enumerate(objectives):
        if objective.name in seen:
            raise SpecError(f"metrics[{index}].name", "names a metric twice", value=objective.name,
                            allowed="each metric once")
        seen.add(objective.name)
