"""What the insight tabs draw, bounded whatever the size of the search (pure data, no plotly).

The analyses themselves are :mod:`hpnb.core.analysis`'s; this module only picks
the points a plot is sent: the optimization history keeps every trial that set a
new best and an even sample of the others, slices an even sample, and importance
is computed from an even sample of the completed trials, so a search of 10,000
trials costs what one of a few thousand does.

Example:
    >>> history_plot([], selected=None).trial_ids
    []
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hpnb.core.analysis.history import HistoryPoint
from hpnb.core.analysis.humane_time import clock_time
from hpnb.core.analysis.slices import ParameterSlice
from hpnb.core.store.records import TrialRecord
from hpnb.core.trial import TrialState

#: at most this many trial markers in the history and in a slice (as many as the Lab view's).
MAX_MARKERS = 1000
#: importance is computed from at most this many completed trials.
IMPORTANCE_TRIALS = 2000

T = TypeVar("T")


def even_sample(items: Sequence[T], count: int) -> list[T]:
    """``count`` items evenly spaced over ``items`` (all of them when there are fewer), in order."""
    if len(items) <= count:
        return list(items)
    if count <= 0:
        return []
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


@dataclass(frozen=True)
class HistoryPlot:
    """Markers (one per trial shown) and the best-so-far line of the optimization history.

    ``x`` and ``best_x`` are trial numbers, or end times (epoch seconds) when ``order`` is "end".
    """

    trial_ids: list[int]
    scores: list[float]
    states: list[str]
    hover: list[str]
    best_x: list[float] = field(default_factory=list)
    best_y: list[float] = field(default_factory=list)
    shown: int = 0
    total: int = 0
    order: str = "trial"
    x: list[float] = field(default_factory=list)


def history_plot(points: Sequence[HistoryPoint], selected: int | None, now: float | None = None,
                 max_markers: int = MAX_MARKERS, order: str = "trial") -> HistoryPlot:
    """The markers and best-so-far steps of ``points`` (in the history's ``order``, "trial" or
    "end": see :func:`~hpnb.core.analysis.history.optimization_history`), ``max_markers`` at most
    plus the trials that set a new best and the selected one. By end time, trials without one
    are left out (they have no place on a time axis)."""
    if order == "end":
        points = [p for p in points if p.end is not None]
    keep = {p.trial_id for p in points if p.is_best or p.trial_id == selected}
    others = [p for p in points if p.trial_id not in keep]
    sampled = {p.trial_id for p in even_sample(others, max(0, max_markers - len(keep)))}
    shown = [p for p in points if p.trial_id in keep or p.trial_id in sampled]

    def place(point: HistoryPoint) -> float:
        return float(point.end) if order == "end" and point.end is not None else point.trial_id

    best = [p for p in points if p.is_best]
    best_x, best_y = [place(p) for p in best], [p.best for p in best]
    if points and (not best or best[-1] is not points[-1]):
        best_x.append(place(points[-1]))  # the line runs on to the latest trial
        best_y.append(points[-1].best)
    hover = [f"trial {p.trial_id} ({p.state.lower()}), ended {clock_time(p.end, now=now)}" for p in shown]
    return HistoryPlot([p.trial_id for p in shown], [p.score for p in shown], [p.state for p in shown],
                       hover, best_x, best_y, len(shown), len(points), order, [place(p) for p in shown])


@dataclass(frozen=True)
class SlicePlot:
    """One parameter's slice as drawn: x values (category labels for a categorical one)."""

    name: str
    kind: str
    log: bool
    x: list[Any]
    y: list[float]
    trial_ids: list[int]
    categories: list[str]


def slice_plot(parameter_slice: ParameterSlice, max_markers: int = MAX_MARKERS) -> SlicePlot:
    """The points of one slice, ``max_markers`` at most (an even sample by trial)."""
    axis = parameter_slice.axis
    rows = even_sample(list(zip(parameter_slice.trial_ids, parameter_slice.values, parameter_slice.scores)),
                       max_markers)
    categories = [str(choice) for choice in axis.choices]
    xs = [str(value) if axis.kind == "categorical" else value for _, value, _ in rows]
    return SlicePlot(axis.name, axis.kind, axis.log, xs, [score for _, _, score in rows],
                     [trial_id for trial_id, _, _ in rows], categories)


def importance_trials(trials: Sequence[TrialRecord], limit: int = IMPORTANCE_TRIALS) -> list[TrialRecord]:
    """The trials an importance is computed from: every completed one, or an even sample of
    ``limit`` of them by trial id (the others are passed through: they are not rated)."""
    completed = sorted((t for t in trials if t.state == TrialState.COMPLETED), key=lambda t: t.trial_id)
    return even_sample(completed, limit)
