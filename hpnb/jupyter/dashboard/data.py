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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import ExperimentState, ranked, summarize, trial_state
from hpnb.core.summary import trial_score as score

FINISHED_STATES = ("COMPLETED", "STOPPED", "FAILED")


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
    counts = summary.counts
    return Header(
        name=summary.name, strategy=summary.strategy, metric=summary.metric, mode=summary.mode,
        state=summary.state.value, budget=summary.budget, done=done, running=counts["RUNNING"],
        completed=counts["COMPLETED"], failed=counts["FAILED"], stopped=counts["STOPPED"],
        elapsed=elapsed, eta=eta, best_value=summary.best_value, best_trial=summary.best_trial,
        best_params=summary.best_params, message=summary.message,
    )


def format_duration(seconds: float | None) -> str:
    """``seconds`` as ``1h02m``, ``3m05s`` or ``12s``; an em dash for None."""
    if seconds is None or math.isnan(seconds):
        return "—"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


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
            changed.add(row.trial_id)
        return changed

    def points(self, trial_id: int, metric: str) -> tuple[list[float], list[float]]:
        series = self.series.get((trial_id, metric))
        return series.points() if series is not None else ([], [])


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


def curve_group_of(trial: TrialRecord, best_id: int | None, selected_id: int | None) -> str:
    """Which group draws ``trial``: selected and best stand out, stopped and failed fade."""
    if trial.trial_id == selected_id:
        return "selected"
    if trial.trial_id == best_id:
        return "best"
    if trial.state in ("RUNNING", "PENDING"):
        return "running"
    if trial.state == "COMPLETED":
        return "completed"
    return "faded"


def curve_groups(
    curves: Curves, trials: Sequence[TrialRecord], metric: str, best_id: int | None, selected_id: int | None
) -> dict[str, CurveGroup]:
    """The lines of the curves plot for ``metric``, one group per :data:`CURVE_GROUPS` entry."""
    groups = {name: CurveGroup() for name in CURVE_GROUPS}
    for trial in sorted(trials, key=lambda t: t.trial_id):
        xs, ys = curves.points(trial.trial_id, metric)
        groups[curve_group_of(trial, best_id, selected_id)].add(trial.trial_id, xs, ys)
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


def trial_duration(trial: TrialRecord, now: float) -> float | None:
    """Seconds a trial ran (so far, while it runs); None if it never started."""
    if trial.start is None:
        return None
    end = trial.end if trial.end is not None else now
    return max(0.0, end - trial.start)


def leaderboard_rows(trials: Sequence[TrialRecord], mode: str, now: float,
                     search: ExperimentState = ExperimentState.RUNNING) -> list[LeaderboardRow]:
    """Every trial, best score first; the rank counts only trials with a score."""
    rows = []
    for position, trial in enumerate(ranked(trials, mode), start=1):
        value = score(trial)
        rows.append(LeaderboardRow(
            rank=position if value is not None else 0, trial_id=trial.trial_id, score=value,
            state=trial_state(trial, search), params=dict(trial.params), duration=trial_duration(trial, now),
        ))
    return rows


def leaderboard_label(row: LeaderboardRow, param_names: Sequence[str]) -> str:
    """One fixed-width line of the leaderboard list."""
    rank = f"{row.rank:>3}" if row.rank else "  -"
    value = format_value(row.score) if row.score is not None else "—"
    params = "  ".join(f"{name}={format_value(row.params.get(name))}" for name in param_names)
    duration = format_duration(row.duration)
    return f"{rank}  #{row.trial_id:<4} {value:>10}  {row.state:<9} {duration:>6}  {params}"


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
        if trial.state == "FAILED"
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
