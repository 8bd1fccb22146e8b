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

from hpnb.core.objectives import Objective
from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import (
    ExperimentState,
    Ranking,
    pareto_ranks,
    ranked,
    summarize,
    trial_scores,
    trial_state,
)
from hpnb.core.summary import trial_score as score
from hpnb.core.trial import TrialState

# -- header ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The top line of the dashboard: what is searched and how far it got."""

    name: str
    strategy: str
    metric: str
    mode: str
    state: str
    budget: int
    done: int
    running: int
    completed: int
    failed: int
    stopped: int
    elapsed: float
    eta: float | None
    best_value: float | None
    best_trial: int | None
    best_params: dict[str, Any] = field(default_factory=dict)
    message: str | None = None
    #: what the search optimises (the summary's); with several there is a front, no best trial
    objectives: tuple[Objective, ...] = ()
    #: the front's trials, best first on the first objective: ``{"trial_id", "values", "params"}``
    front: tuple[dict[str, Any], ...] = ()
    #: how many trials the front has (``front`` may list fewer)
    front_size: int = 0

    @property
    def is_multi_objective(self) -> bool:
        return len(self.objectives) > 1

    @property
    def ranking(self) -> Ranking:
        """What trials are ranked by: the objectives when there are several, else the mode."""
        return self.objectives if self.is_multi_objective else self.mode


def header(experiment: ExperimentRecord, trials: Sequence[TrialRecord], now: float) -> Header:
    """The header of ``experiment`` at time ``now`` (epoch seconds), from its one summary
    (:func:`hpnb.core.summary.summarize`).

    ETA is the time left at the pace so far (finished trials per elapsed second),
    None until a trial has finished or once the search is over.
    """
    summary = summarize(experiment, trials, now)
    done, elapsed = summary.done, summary.elapsed
    eta = None
    if summary.state.is_active and done and elapsed > 0:
        eta = max(0, experiment.budget - done) * elapsed / done
    count = summary.count
    return Header(
        name=summary.name, strategy=summary.strategy, metric=summary.metric, mode=summary.mode,
        state=summary.state.value, budget=summary.budget, done=done, running=count(TrialState.RUNNING),
        completed=count(TrialState.COMPLETED), failed=count(TrialState.FAILED),
        stopped=count(TrialState.STOPPED),
        elapsed=elapsed, eta=eta, best_value=summary.best_value, best_trial=summary.best_trial,
        best_params=summary.best_params, message=summary.message, objectives=summary.objectives,
        front=summary.front, front_size=summary.front_size,
    )


def format_value(value: Any) -> str:
    """A parameter or metric value, short: floats with 4 significant digits."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def format_params(params: dict[str, Any]) -> str:
    return ", ".join(f"{key}={format_value(value)}" for key, value in params.items())


# -- curves ---------------------------------------------------------------------------------


class Series:
    """One curve, thinned as it grows: at most about ``2 * max_points`` points plus the latest.

    When full, every other kept point is dropped and only every ``stride``-th new
    report is kept, so a trial reporting a million steps costs the same to draw
    as one reporting a thousand.
    """

    def __init__(self, max_points: int) -> None:
        self.max_points = max_points
        self.xs: list[float] = []
        self.ys: list[float] = []
        self.stride = 1
        self._seen = 0
        self.last: tuple[float, float] | None = None

    def append(self, x: float, y: float) -> None:
        self.last = (x, y)
        if self._seen % self.stride == 0:
            self.xs.append(x)
            self.ys.append(y)
            if len(self.xs) >= 2 * self.max_points:
                self.xs, self.ys = self.xs[::2], self.ys[::2]
                self.stride *= 2
        self._seen += 1

    def points(self) -> tuple[list[float], list[float]]:
        """The kept points, always ending with the latest report."""
        if self.last is None or (self.xs and self.xs[-1] == self.last[0] and self.ys[-1] == self.last[1]):
            return list(self.xs), list(self.ys)
        return [*self.xs, self.last[0]], [*self.ys, self.last[1]]


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


def trial_duration(trial: TrialRecord, now: float) -> float | None:
    """Seconds a trial ran (so far, while it runs); None if it never started."""
    if trial.start is None:
        return None
    end = trial.end if trial.end is not None else now
    return max(0.0, end - trial.start)


def objective_values(trial: TrialRecord, objectives: Sequence[Objective]) -> dict[str, float]:
    """``{objective: value}`` of a trial with a value for each (the summary's scores), else empty."""
    scores = trial_scores(trial, objectives)
    return {} if scores is None else {o.name: v for o, v in zip(objectives, scores, strict=True)}


def leaderboard_rows(trials: Sequence[TrialRecord], ranking: Ranking, now: float,
                     search: ExperimentState = ExperimentState.RUNNING,
                     limit: int | None = None) -> list[LeaderboardRow]:
    """Every trial (the first ``limit``), best first (by score for a mode; by Pareto rank, then
    crowding for several objectives); the rank counts only trials with a score."""
    several: Sequence[Objective] = () if isinstance(ranking, str) or len(ranking) < 2 else ranking
    fronts = pareto_ranks(trials, several) if several else {}
    rows = []
    for position, trial in enumerate(ranked(trials, ranking)[:limit], start=1):
        value = score(trial)
        values = objective_values(trial, several) if several else {}
        scored = bool(values) if several else value is not None
        rows.append(LeaderboardRow(
            rank=position if scored else 0, trial_id=trial.trial_id, score=value,
            state=trial_state(trial, search), params=dict(trial.params), duration=trial_duration(trial, now),
            values=values, pareto_rank=fronts.get(trial.trial_id),
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
