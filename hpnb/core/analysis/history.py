"""The optimization history: each finished trial's score, in trial or end-time order, with the
best score so far.

It is the plot every search has, whether or not its trials report steps: a trial
that returns one final value has a score as much as one that streamed a curve.
A trial's **score** is the one :func:`hpnb.core.summary.trial_score` gives (its
latest target value; none for a failed trial), so the best-so-far line ends at
the best trial every front end shows, unless that trial is still running.

Example:
    >>> from hpnb.core.store import TrialRecord
    >>> def trial(i, value, end):
    ...     return TrialRecord(1, i, {}, "COMPLETED", 0.0, end, None, None, 0, None, None,
    ...                        value, value, {}, None, None)
    >>> points = optimization_history([trial(0, 0.5, 9.0), trial(1, 0.7, 5.0), trial(2, 0.2, 7.0)], "min")
    >>> [(p.trial_id, p.score, p.best, p.is_best) for p in points]
    [(0, 0.5, 0.5, True), (1, 0.7, 0.5, False), (2, 0.2, 0.2, True)]
    >>> [(p.trial_id, p.best) for p in optimization_history(
    ...     [trial(0, 0.5, 9.0), trial(1, 0.7, 5.0), trial(2, 0.2, 7.0)], "min", order="end")]
    [(1, 0.7), (2, 0.2), (0, 0.2)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from hpnb.core.objectives import Objective
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import trial_score
from hpnb.core.trial import TrialState

Order = Literal["trial", "end"]
ORDERS: tuple[str, ...] = ("trial", "end")
_FINISHED = frozenset(state.value for state in TrialState if state.is_finished)


@dataclass(frozen=True)
class HistoryPoint:
    """One finished trial in the optimization history.

    Attributes:
        trial_id: the trial's number.
        state: COMPLETED or STOPPED (stopped early, scored by its last value).
        score: the trial's score (see the module's docstring).
        end: when the trial ended, epoch seconds (None in stores that lack it).
        best: the best score among this trial and those before it in the history's order.
        is_best: whether this trial set a new best (a point on the best-so-far line's steps).
    """

    trial_id: int
    state: str
    score: float
    end: float | None
    best: float
    is_best: bool


def scored_trials(trials: Iterable[TrialRecord], metric: str | None = None,
                  states: frozenset[str] = _FINISHED) -> list[tuple[TrialRecord, float]]:
    """The trials in ``states`` (default: finished) that have a score, with it, by trial id.

    Args:
        trials: stored trials of one search.
        metric: score trials by this reported metric (its final value in ``trial.metrics``)
            instead of the search's target; trials without a finite value of it are left out.
        states: the trial states to keep.
    """
    scored = []
    for trial in sorted(trials, key=lambda t: t.trial_id):
        if trial.state not in states:
            continue
        score = trial_score(trial) if metric is None else metric_score(trial, metric)
        if score is not None:
            scored.append((trial, score))
    return scored


def metric_score(trial: TrialRecord, metric: str) -> float | None:
    """The final value of ``metric`` a trial reported, as a finite float; None otherwise."""
    if trial.state == TrialState.FAILED.value:
        return None
    value = trial.metrics.get(metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def optimization_history(trials: Sequence[TrialRecord], mode: str, order: Order = "trial",
                         metric: str | None = None) -> list[HistoryPoint]:
    """Every finished trial with a score, with the best score so far.

    Args:
        trials: the stored trials of one search (any order; unfinished and failed ones are skipped).
        mode: "min" or "max": what "best" means.
        order: "trial" (by trial number) or "end" (by end time, trials without one last):
            the order the best-so-far runs in. Plot ``best`` against ``trial_id`` for the
            first and against ``end`` for the second.
        metric: another reported metric to follow instead of the target (see :func:`scored_trials`).

    Returns:
        One point per trial, in ``order``.

    Raises:
        ValueError: for a mode or order not allowed.

    Example:
        >>> optimization_history([], "min")
        []
    """
    if mode not in ("min", "max"):
        raise ValueError(f"mode: {mode!r} is not allowed; allowed: min, max")
    if order not in ORDERS:
        raise ValueError(f"order: {order!r} is not allowed; allowed: {', '.join(ORDERS)}")
    scored = scored_trials(trials, metric)
    if order == "end":
        scored.sort(key=lambda pair: (pair[0].end is None, pair[0].end or 0.0, pair[0].trial_id))
    objective = Objective(metric or "score", "max" if mode == "max" else "min")
    points: list[HistoryPoint] = []
    best: float | None = None
    for trial, score in scored:
        improved = best is None or objective.is_better(score, best)
        best = score if improved else best
        assert best is not None
        points.append(HistoryPoint(trial.trial_id, trial.state, score, trial.end, best, improved))
    return points
