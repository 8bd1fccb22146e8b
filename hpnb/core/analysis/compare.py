"""Comparing searches: each search's best score so far against trials and against wall-clock time.

For each search, every finished trial with a score (:mod:`.history`) gives one point:

- ``best``: the best score among it and the trials numbered before it, to plot against
  the trial number (which strategy finds good configurations in fewer trials);
- ``best_at_time``: the best score among the trials that had ended by its end, to plot
  against ``seconds`` (which finds them sooner, parallelism and early stopping included).

``seconds`` count from the search's start: its first trial's start (the cluster's start-up
is not the strategy's time), else its creation. Time a resumed search spent stopped counts.
Each search is judged by its own mode.

Example:
    >>> from hpnb.core.store import ExperimentRecord, TrialRecord
    >>> exp = ExperimentRecord(1, "a", {}, None, "COMPLETED", 2, 1, "loss", "min", "random",
    ...                        0.0, 0.0, None, False, None, None, None)
    >>> trials = [TrialRecord(1, i, {}, "COMPLETED", 10.0 + i, 20.0 - i, None, None, 0, None, None,
    ...                       v, v, {}, None, None) for i, v in enumerate([0.5, 0.7])]
    >>> curve = search_curve(exp, trials)
    >>> [(p.trial_id, p.seconds, p.best, p.best_at_time) for p in curve.points]
    [(0, 10.0, 0.5, 0.5), (1, 9.0, 0.5, 0.7)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hpnb.core.analysis.history import optimization_history
from hpnb.core.store.records import ExperimentRecord, TrialRecord


@dataclass(frozen=True)
class CurvePoint:
    """One finished trial of a search in a comparison (see the module's docstring)."""

    trial_id: int
    seconds: float | None
    score: float
    best: float
    best_at_time: float


@dataclass(frozen=True)
class SearchCurve:
    """One search in a comparison: its name, metric, mode, start and points by trial number."""

    name: str
    metric: str
    mode: str
    start: float
    points: tuple[CurvePoint, ...]


def search_start(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> float:
    """When the search started: its first trial's start, else its creation (epoch seconds)."""
    starts = [t.start for t in trials if t.start is not None]
    return min(starts) if starts else experiment.created


def search_curve(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> SearchCurve:
    """The comparison data of one search."""
    start = search_start(experiment, trials)
    in_time = {p.trial_id: p.best for p in optimization_history(trials, experiment.mode, order="end")}
    points = tuple(
        CurvePoint(p.trial_id, None if p.end is None else p.end - start, p.score, p.best,
                   in_time[p.trial_id])
        for p in optimization_history(trials, experiment.mode, order="trial"))
    return SearchCurve(experiment.name, experiment.metric, experiment.mode, start, points)


def compare_searches(searches: Sequence[tuple[ExperimentRecord, Sequence[TrialRecord]]]) -> list[SearchCurve]:
    """The comparison data of several searches, in the order given."""
    return [search_curve(experiment, trials) for experiment, trials in searches]
