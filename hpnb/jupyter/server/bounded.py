"""What the Lab view of a large search is sent: bounded whatever the size of the search.

A search of 10,000 trials and 200,000 results must open in the Lab view in a blink, so
the routes never send everything: the leaderboard in sorted pages, metric curves of a few
trials thinned to a few hundred points each, parallel coordinates of the best trials plus
an even sample of the rest. Plain data from store records; no tornado here.

Example:
    >>> sort_key_names(["lr"])[:4]
    ['rank', 'trial', 'score', 'state']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.analysis.compare import CurvePoint, SearchCurve
from hpnb.core.analysis.history import HistoryPoint
from hpnb.core.analysis.slices import Axis, ContourData, ParameterSlice
from hpnb.core.objectives import Objective
from hpnb.core.spec import parse_spec
from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import ExperimentState, Ranking, trial_state
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard.data import Series, trial_duration
from hpnb.jupyter.server.ranking import (
    PARETO_COLUMN,
    SearchRanking,
    as_ranking,
    objective_key,
    objective_sort_keys,
)

#: columns of the leaderboard that are not parameters, in the order the table shows them.
FIXED_COLUMNS = ("rank", "trial", "score", "state", "duration", "start")
#: a parameter column's sort key is this prefix and the parameter's name.
PARAM_PREFIX = "param:"
#: curves of at most this many trials are sent (the best, then running ones, then the selected).
CURVE_TRIALS = 20
#: parallel coordinates draw the best trials and an even sample of the others: 250 others show
#: where the rest of the search went, in a quarter of the data (sent, and held by the page) of 1,000.
PARCOORDS_BEST = 1000
PARCOORDS_SAMPLE = 250


def sort_key_names(param_names: Sequence[str], objectives: Sequence[Objective] = ()) -> list[str]:
    """Every accepted ``sort`` value: the fixed columns, with several ``objectives`` the Pareto
    rank's and ``objective:NAME`` per objective, then ``param:NAME`` per parameter."""
    return [*FIXED_COLUMNS, *objective_sort_keys(objectives), *(PARAM_PREFIX + name for name in param_names)]


def _param_key(name: str) -> Callable[[TrialRecord], tuple[int, float, str] | None]:
    """Numbers before text, each in their order; None for a trial without the parameter."""

    def key(trial: TrialRecord) -> tuple[int, float, str] | None:
        value = trial.params.get(name)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return (0, float(value), "")
        return (1, 0.0, str(value))

    return key


def sorted_trials(
    trials: Sequence[TrialRecord], ranking: Ranking | SearchRanking, sort: str, descending: bool, now: float
) -> list[TrialRecord]:
    """Trials in the order of column ``sort`` (see :func:`sort_key_names`); ties by trial id.

    Rank, score and Pareto rank sort by the search's ranking (a mode, its objectives or a
    :class:`SearchRanking`; ``descending`` puts the worst first); an objective column by its
    value, best first when ascending; missing values stay last whichever the direction.
    """
    order = as_ranking(trials, ranking)
    if sort in ("rank", "score", PARETO_COLUMN):
        scored = order.scored
        return scored[::-1] + order.order[len(scored):] if descending else list(order.order)
    keys: dict[str, Callable[[TrialRecord], Any]] = {
        "trial": lambda t: t.trial_id,
        "state": lambda t: t.state,
        "duration": lambda t: trial_duration(t, now),
        "start": lambda t: t.start,
    }
    key: Callable[[TrialRecord], Any] = (
        _param_key(sort[len(PARAM_PREFIX):]) if sort.startswith(PARAM_PREFIX)
        else objective_key(order, sort) or keys[sort])
    by_id = sorted(trials, key=lambda t: t.trial_id)
    present = [t for t in by_id if key(t) is not None]
    present.sort(key=key, reverse=descending)
    return present + [t for t in by_id if key(t) is None]


def ranks(trials: Sequence[TrialRecord], ranking: Ranking | SearchRanking) -> dict[int, int]:
    """Trial id -> 1-based rank, for trials with a score (every score, with several objectives)."""
    return dict(as_ranking(trials, ranking).positions)


@dataclass(frozen=True)
class ParcoordsSample:
    """The trials parallel coordinates draw: ``best`` best-ranked, then ``sampled`` others."""

    trials: list[TrialRecord]
    scored: int
    best: int
    sampled: int


def parcoords_sample(
    trials: Sequence[TrialRecord],
    ranking: Ranking | SearchRanking,
    best: int = PARCOORDS_BEST,
    sample: int = PARCOORDS_SAMPLE,
    selected: int | None = None,
) -> ParcoordsSample:
    """The best ``best`` scored trials, an evenly spaced ``sample`` of the other scored ones
    (by trial id, so it stays put between redraws), and the ``selected`` trial if scored.
    With several objectives, "scored" is a value for every objective and "best" the Pareto order."""
    scored = as_ranking(trials, ranking).scored
    top, rest = scored[:best], sorted(scored[best:], key=lambda t: t.trial_id)
    if len(rest) > sample:
        step = len(rest) / sample
        rest = [rest[int(i * step)] for i in range(sample)]
    chosen = top + rest
    if selected is not None and all(t.trial_id != selected for t in chosen):
        chosen += [t for t in scored if t.trial_id == selected]
    return ParcoordsSample(chosen, len(scored), len(top), len(rest))


def score_ranges(ranking: SearchRanking) -> dict[str, list[float]]:
    """``{objective: [lowest, highest]}`` over every scored trial (one objective: its score's), so
    that the axes of parallel coordinates do not depend on which trials the sample drew."""
    ranges: dict[str, list[float]] = {}
    for trial in ranking.scored:
        for name, value in ranking.values(trial).items():
            if value is not None:
                low, high = ranges.setdefault(name, [value, value])
                ranges[name] = [min(low, value), max(high, value)]
    return ranges


def curve_trials(
    trials: Sequence[TrialRecord], mode: Ranking | SearchRanking, search: ExperimentState,
    selected: int | None, limit: int = CURVE_TRIALS,
) -> list[TrialRecord]:
    """Whose curves are drawn: the selected trial, running ones, then the best, ``limit`` at most."""
    by_id = {t.trial_id: t for t in trials}
    chosen: dict[int, TrialRecord] = {}
    if selected is not None and selected in by_id:
        chosen[selected] = by_id[selected]
    # a search no driver works on has no running trial (they show as interrupted)
    running = [t for t in trials if trial_state(t, search) == TrialState.RUNNING] if search.is_active else []
    for trial in running[: limit // 2] + as_ranking(trials, mode).order:
        if len(chosen) >= limit:
            break
        if trial.last_step is not None or trial.state == TrialState.RUNNING:
            chosen.setdefault(trial.trial_id, trial)
    return sorted(chosen.values(), key=lambda t: t.trial_id)


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


def parameter_kinds(record: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[dict[str, Any]]:
    """How each varied parameter is drawn: ``int``, ``float`` or ``categorical``, ``log`` when
    log-scaled, with ``min``/``max`` or ``choices``. From the stored spec; for parameters it
    does not describe, judged from the values."""
    try:
        space = {p.name: p for p in parse_spec(record.spec).space.free}
    except Exception:  # a spec stored by another version: judge every parameter by its values
        space = {}
    names = sorted({name for t in trials for name in t.params})
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
