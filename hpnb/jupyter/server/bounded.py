"""What the Lab view of a large search is sent: bounded whatever the size of the search.

A search of 10,000 trials and 200,000 results must open in the Lab view in a blink, so
the routes never send everything: the history thinned, metric curves of a few trials
thinned to a few hundred points each, slices and contours of the best trials plus an even
sample of the rest (the leaderboard's order and the parallel coordinates are
:mod:`hpnb.views`', shared with the cell's dashboard). Plain data from store records; no
tornado here.

Example:
    >>> thinned_curve([], 10)
    ([], [])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hpnb.core.analysis.compare import CurvePoint, SearchCurve
from hpnb.core.analysis.history import HistoryPoint
from hpnb.core.analysis.slices import Axis, ContourData, ParameterSlice
from hpnb.core.space import SearchSpace
from hpnb.core.spec import parse_spec
from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.views.sampling import Series


def thinned_history(points: Sequence[HistoryPoint], limit: int, selected: int | None) -> list[HistoryPoint]:
    """At most about ``limit`` points of the optimization history: every point that set a new best
    (so the best-so-far line is exact), the selected trial, and an even sample of the others."""
    if len(points) <= limit:
        return list(points)
    keep = {i for i, p in enumerate(points) if p.is_best or p.trial_id == selected}
    others = [i for i in range(len(points)) if i not in keep]
    room = max(0, limit - len(keep))
    if others and room:
        step = len(others) / room
        keep.update(others[int(k * step)] for k in range(min(room, len(others))))
    return [points[i] for i in sorted(keep)]


def thinned_curve(rows: Sequence[ResultRow], max_points: int) -> tuple[list[float], list[float]]:
    """A trial's target values against step (its report number when it gave no step), at most
    about ``2 * max_points`` points and always its latest one."""
    series = Series(max_points)
    for row in rows:
        if row.value is not None and math.isfinite(row.value):
            series.append(float(row.step if row.step is not None else row.seq), row.value)
    return series.points()


def stored_space(record: ExperimentRecord) -> SearchSpace | None:
    """The search space of ``record``'s stored spec; None for a spec another version stored (its
    parameters are then judged by their values)."""
    try:
        return parse_spec(record.spec).space
    except Exception:
        return None


def parameter_order(record: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[str]:
    """The parameters ``trials`` set: the spec's free ones in its order (as the cell's dashboard
    lists them), then any others by name."""
    stored = stored_space(record)
    declared = [p.name for p in stored.free] if stored is not None else []
    used = {name for t in trials for name in t.params}
    return [name for name in declared if name in used] + sorted(used.difference(declared))


def parameter_kinds(record: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[dict[str, Any]]:
    """How each varied parameter is drawn: ``int``, ``float`` or ``categorical``, ``log`` when
    log-scaled, with ``min``/``max`` or ``choices``. From the stored spec; for parameters it
    does not describe, judged from the values."""
    stored = stored_space(record)
    space = {p.name: p for p in stored.free} if stored is not None else {}
    names = parameter_order(record, trials)
    kinds: list[dict[str, Any]] = []
    for name in names:
        if name in space:
            kinds.append(_declared_kind(name, space[name].to_dict(), space[name].is_log))
            continue
        values = [t.params[name] for t in trials if name in t.params]
        if space or len({repr(v) for v in values}) > 1:
            kinds.append(_inferred_kind(name, values))
    return kinds


def _declared_kind(name: str, described: dict[str, Any], log: bool) -> dict[str, Any]:
    kind = {"categorical": "categorical", "int": "int"}.get(described.get("type", ""), "float")
    out: dict[str, Any] = {"name": name, "kind": kind, "log": log}
    if kind == "categorical":
        out["choices"] = [str(choice) for choice in described["list"]]
    else:
        out.update({key: described[key] for key in ("min", "max") if key in described})
    return out


def _inferred_kind(name: str, values: Sequence[Any]) -> dict[str, Any]:
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) < len(values) or not numbers:
        choices = sorted({str(v) for v in values})
        return {"name": name, "kind": "categorical", "log": False, "choices": choices}
    kind = "int" if all(isinstance(v, int) for v in numbers) else "float"
    return {"name": name, "kind": kind, "log": False, "min": min(numbers), "max": max(numbers)}


def slice_json(piece: ParameterSlice, keep: set[int]) -> dict[str, Any]:
    """One slice as JSON, only the trials in ``keep`` (the best and a sample, in large searches)."""
    rows = [(t, v, s) for t, v, s in zip(piece.trial_ids, piece.values, piece.scores) if t in keep]
    return {"axis": _axis_json(piece.axis), "trial_ids": [r[0] for r in rows],
            "values": [r[1] for r in rows], "scores": [r[2] for r in rows]}


def contour_json(contour: ContourData, keep: set[int]) -> dict[str, Any]:
    """A contour as JSON: its grid, and the trials in ``keep`` on top."""
    rows = [row for row in zip(contour.trial_ids, contour.x_values, contour.y_values, contour.scores)
            if row[0] in keep]
    z = [[v if math.isfinite(v) else None for v in row] for row in contour.z]  # no cell: null
    return {"x": _axis_json(contour.x), "y": _axis_json(contour.y), "x_grid": contour.x_grid,
            "y_grid": contour.y_grid, "z": z, "trial_ids": [r[0] for r in rows],
            "x_values": [r[1] for r in rows], "y_values": [r[2] for r in rows],
            "scores": [r[3] for r in rows]}


def _axis_json(axis: Axis) -> dict[str, Any]:
    return {"name": axis.name, "kind": axis.kind, "log": axis.log, "choices": [str(c) for c in axis.choices]}


def compare_json(curve: SearchCurve, limit: int) -> dict[str, Any]:
    """One search of a comparison; past ``limit`` points, those that improved either best and a sample."""
    points = list(curve.points)
    if len(points) > limit:
        changed = {i for i in range(len(points)) if i == 0 or points[i].best != points[i - 1].best}
        changed |= _improved_in_time(points)
        step = max(1, len(points) // max(1, limit - len(changed)))
        points = [p for i, p in enumerate(points) if i in changed or i % step == 0 or i == len(points) - 1]
    return {"name": curve.name, "metric": curve.metric, "mode": curve.mode, "start": curve.start,
            "trial_ids": [p.trial_id for p in points], "seconds": [p.seconds for p in points],
            "best": [p.best for p in points], "best_at_time": [p.best_at_time for p in points]}


def _improved_in_time(points: Sequence[CurvePoint]) -> set[int]:
    """Indices of the points where the best by end time changed (in end-time order)."""
    timed = sorted((i for i, p in enumerate(points) if p.seconds is not None),
                   key=lambda i: points[i].seconds or 0.0)
    bests = [points[i].best_at_time for i in timed]
    return {i for k, i in enumerate(timed) if k == 0 or bests[k] != bests[k - 1]}
