"""What each part of the dashboard shows, computed from store records (no widgets here).

Every function takes :class:`~hpnb.core.store.records.ExperimentRecord`,
:class:`~hpnb.core.store.records.TrialRecord` and
:class:`~hpnb.core.store.records.ResultRow` values and returns plain data
(dataclasses, lists, strings), so it can be tested without a front end and
rendered by widgets or as static HTML alike.

Example:
    >>> from hpnb.jupyter.dashboard.data import Curves
    >>> curves = Curves(max_points=4)
    >>> curves.metrics
    []
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.constraints import Constraint, is_feasible
from hpnb.core.objectives import Objective
from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import (
    ExperimentState,
    Ranking,
    SearchSummary,
    pareto_ranks,
    ranked,
    summarize,
    trial_scores,
    trial_state,
)
from hpnb.core.summary import trial_score as score
from hpnb.core.trial import TrialState
from hpnb.views.columns import trial_duration
from hpnb.views.sampling import Series

# -- header ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The top line of the dashboard: the search's one summary (what every front end shows, see
    :func:`hpnb.core.summary.summarize`) and the time left at the pace so far."""

    summary: SearchSummary
    #: seconds left at the pace so far; None until a trial has finished or once the search is over
    eta: float | None = None

    @property
    def ranking(self) -> Ranking:
        """What trials are ranked by: the objectives when there are several, else the mode."""
        return self.summary.objectives if self.summary.is_multi_objective else self.summary.mode


def header(experiment: ExperimentRecord, trials: Sequence[TrialRecord], now: float) -> Header:
    """The header of ``experiment`` at time ``now`` (epoch seconds), from its one summary.

    ETA is the time left at the pace so far (finished trials per elapsed second),
    None until a trial has finished or once the search is over.
    """
    summary = summarize(experiment, trials, now)
    done, elapsed = summary.done, summary.elapsed
    eta = None
    if summary.state.is_active and done and elapsed > 0:
        eta = max(0, experiment.budget - done) * elapsed / done
    return Header(summary, eta)


def format_value(value: Any) -> str:
    """A parameter or metric value, short: floats with 4 significant digits."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def format_params(params: dict[str, Any]) -> str:
    return ", ".join(f"{key}={format_value(value)}" for key, value in params.items())


# -- curves ---------------------------------------------------------------------------------


class Curves:
    """Every trial's metrics over steps, fed incrementally with new result rows."""

    def __init__(self, max_points: int = 300) -> None:
        self.max_points = max_points
        self.series: dict[tuple[int, str], Series] = {}
        self.last_seq: dict[int, int] = {}
        self.metrics: list[str] = []
        #: whether any trial reported a metric more than once (there are curves to draw).
        self.has_steps = False

    def add(self, rows: Iterable[ResultRow]) -> set[int]:
        """Take new rows (rows already seen are skipped); returns the ids of trials that changed."""
        changed: set[int] = set()
        for row in rows:
            if row.seq <= self.last_seq.get(row.trial_id, 0):
                continue
            self.last_seq[row.trial_id] = row.seq
            x = float(row.step if row.step is not None else row.seq)
            for metric, value in row.metrics.items():
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                if metric not in self.metrics:
                    self.metrics.append(metric)
                key = (row.trial_id, metric)
                if key not in self.series:
                    self.series[key] = Series(self.max_points)
                self.series[key].append(x, float(value))
                self.has_steps = self.has_steps or len(self.series[key].xs) > 1
            changed.add(row.trial_id)
        return changed

    def points(self, trial_id: int, metric: str) -> tuple[list[float], list[float]]:
        series = self.series.get((trial_id, metric))
        return series.points() if series is not None else ([], [])


#: the curves plot is sent at most this many points in all, whatever the number of trials.
MAX_CURVE_POINTS = 20_000
#: the curve groups, drawn in this order (later on top).
CURVE_GROUPS = ("faded", "completed", "running", "best", "selected")


@dataclass
class CurveGroup:
    """The curves of several trials as one line trace: ``None`` separates trials."""

    x: list[float | None] = field(default_factory=list)
    y: list[float | None] = field(default_factory=list)
    text: list[str | None] = field(default_factory=list)

    def add(self, trial_id: int, xs: list[float], ys: list[float]) -> None:
        if not xs:
            return
        if self.x:
            self.x.append(None)
            self.y.append(None)
            self.text.append(None)
        self.x.extend(xs)
        self.y.extend(ys)
        self.text.extend([f"trial {trial_id}"] * len(xs))


def curve_group_of(trial: TrialRecord, best_ids: Collection[int], selected_id: int | None) -> str:
    """Which group draws ``trial``: selected and best (the best trial, or with several objectives
    the trials of the Pareto front) stand out, stopped and failed fade."""
    if trial.trial_id == selected_id:
        return "selected"
    if trial.trial_id in best_ids:
        return "best"
    if TrialState(trial.state).is_under_way:
        return "running"
    if trial.state == TrialState.COMPLETED:
        return "completed"
    return "faded"


def thinned(xs: list[float], ys: list[float], count: int) -> tuple[list[float], list[float]]:
    """At most ``count`` (>= 2) of the points, evenly spaced, always the first and the last."""
    if len(xs) <= count:
        return xs, ys
    step = (len(xs) - 1) / (count - 1)
    picks = [round(i * step) for i in range(count)]
    return [xs[i] for i in picks], [ys[i] for i in picks]


def curve_groups(
    curves: Curves, trials: Sequence[TrialRecord], metric: str, best_ids: Collection[int],
    selected_id: int | None, max_points: int = MAX_CURVE_POINTS,
) -> dict[str, CurveGroup]:
    """The lines of the curves plot for ``metric``, one group per :data:`CURVE_GROUPS` entry (the
    trials of ``best_ids`` in the "best" one); ``max_points`` points in all at most, shared
    evenly by the trials' curves."""
    groups = {name: CurveGroup() for name in CURVE_GROUPS}
    per_trial = max(2, max_points // max(1, len(trials)))
    for trial in sorted(trials, key=lambda t: t.trial_id):
        xs, ys = thinned(*curves.points(trial.trial_id, metric), per_trial)
        groups[curve_group_of(trial, best_ids, selected_id)].add(trial.trial_id, xs, ys)
    return groups


# -- leaderboard and failures ---------------------------------------------------------------


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    trial_id: int
    score: float | None
    state: str
    params: dict[str, Any]
    duration: float | None
    #: with several objectives: the trial's value of each (empty without them all) and its
    #: non-domination rank (0: on the front; None without every value)
    values: dict[str, float] = field(default_factory=dict)
    pareto_rank: int | None = None
    #: whether the trial satisfies the search's constraints (always, without constraints)
    feasible: bool = True


def objective_values(trial: TrialRecord, objectives: Sequence[Objective]) -> dict[str, float]:
    """``{objective: value}`` of a trial with a value for each (the summary's scores), else empty."""
    scores = trial_scores(trial, objectives)
    return {} if scores is None else {o.name: v for o, v in zip(objectives, scores, strict=True)}


def leaderboard_rows(trials: Sequence[TrialRecord], ranking: Ranking, now: float,
                     search: ExperimentState = ExperimentState.RUNNING,
                     limit: int | None = None,
                     constraints: Sequence[Constraint] = ()) -> list[LeaderboardRow]:
    """Every trial (the first ``limit``), best first (by score for a mode; by Pareto rank, then
    crowding for several objectives; infeasible trials after the feasible ones); the rank counts
    only trials with a score."""
    several: Sequence[Objective] = () if isinstance(ranking, str) or len(ranking) < 2 else ranking
    fronts = pareto_ranks(trials, several, constraints) if several else {}
    rows = []
    for position, trial in enumerate(ranked(trials, ranking, constraints)[:limit], start=1):
        value = score(trial)
        values = objective_values(trial, several) if several else {}
        scored = bool(values) if several else value is not None
        rows.append(LeaderboardRow(
            rank=position if scored else 0, trial_id=trial.trial_id, score=value,
            state=trial_state(trial, search), params=dict(trial.params), duration=trial_duration(trial, now),
            values=values, pareto_rank=fronts.get(trial.trial_id), feasible=is_feasible(trial, constraints),
        ))
    return rows


@dataclass(frozen=True)
class Failure:
    trial_id: int
    params: dict[str, Any]
    error: str


def failures(trials: Sequence[TrialRecord]) -> list[Failure]:
    """Failed trials with their tracebacks, in trial order."""
    return [
        Failure(trial.trial_id, dict(trial.params), trial.error or "(no traceback stored)")
        for trial in sorted(trials, key=lambda t: t.trial_id)
        if trial.state == TrialState.FAILED
    ]


# -- population-based training --------------------------------------------------------------


@dataclass(frozen=True)
class Lineage:
    """PBT members over steps: points (step, trial, value) and exploits (step, parent, step, child)."""

    points: list[tuple[float, float, float]]
    exploits: list[tuple[float, float, float, float]]


def lineage(curves: Curves, trials: Sequence[TrialRecord], metric: str) -> Lineage:
    """Each trial's reports of ``metric`` on its own row; a line from a parent's last report to the
    first report of the trial that continued from it (an exploit)."""
    points: list[tuple[float, float, float]] = []
    exploits: list[tuple[float, float, float, float]] = []
    for trial in sorted(trials, key=lambda t: t.trial_id):
        xs, ys = curves.points(trial.trial_id, metric)
        points.extend((x, float(trial.trial_id), y) for x, y in zip(xs, ys))
        if trial.parent is not None and xs:
            parent_xs, _ = curves.points(trial.parent, metric)
            start = parent_xs[-1] if parent_xs else xs[0]
            exploits.append((start, float(trial.parent), xs[0], float(trial.trial_id)))
    return Lineage(points, exploits)
