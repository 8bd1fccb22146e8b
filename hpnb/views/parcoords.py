"""Parallel coordinates, built once for the cell's dashboard and the Lab: the trace both draw.

The trials drawn are the best and an even sample of the others
(:func:`~hpnb.views.sampling.parcoords_sample`), plus the selected one; each gets a line
through an axis per parameter (:mod:`hpnb.views.axes`: integer ticks, log axes, the slot of
an inactive parameter), then the score's axis (lines coloured by score, the best brightest
whatever the mode) or, with several objectives, one axis per objective (lines coloured by
Pareto rank, the front brightest). The result is the finished trace, in the shape of a plotly
parcoords trace with each line's trial id and the selected line: the renderer
(``labextension/src/parallelCoordinates.ts``) only draws it. No plotly, no Jupyter here.

Example:
    >>> from hpnb.core.store import TrialRecord
    >>> def trial(i, loss):
    ...     return TrialRecord(1, i, {"lr": 0.1 * i}, "COMPLETED", 0.0, 1.0, None, None, 0, None, None,
    ...                        loss, loss, {"loss": loss}, None, None)
    >>> view = parcoords_view(None, [trial(1, 0.5), trial(2, 0.25)], "loss", "min", selected=2)
    >>> [d["label"] for d in view.trace["dimensions"]], view.trace["ids"], view.trace["selected"]
    (['lr', 'loss'], [1, 2], {'trial': 2, 'index': 1})
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.space import SearchSpace
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import Ranking, trial_scores
from hpnb.views.axes import Axis, finite_span, integer_ticks, parameter_axes
from hpnb.views.ranking import SearchRanking, as_ranking
from hpnb.views.sampling import PARCOORDS_BEST, PARCOORDS_SAMPLE, parcoords_sample

#: Viridis, dark to bright; the best lines are drawn brightest whatever the mode.
VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")
COLOUR_SCALE = [[i / (len(VIRIDIS) - 1), colour] for i, colour in enumerate(VIRIDIS)]
#: the colour bar's title with several objectives.
PARETO_RANK = "Pareto rank"


@dataclass(frozen=True)
class ParallelCoordinates:
    """The axes, the colour value of each line and the trial id of each line."""

    axes: list[Axis]
    colors: list[float]
    trial_ids: list[int]
    reverse_scale: bool
    #: the colour scale's (min, max): the scores' span, widened a little when they are all equal.
    color_range: tuple[float, float] = (0.0, 1.0)
    #: what the colours show ("" for the last axis), and where its colour bar has ticks (None:
    #: the two ends and the middle)
    color_title: str = ""
    color_ticks: list[float] | None = None


def parallel_coordinates(space: SearchSpace | None, trials: Sequence[TrialRecord], metric: str,
                         ranking: Ranking | SearchRanking) -> ParallelCoordinates:
    """One line per trial of ``trials`` with every score, in trial order; fixed parameters get
    no axis.

    ``ranking`` is the search's (a :class:`SearchRanking` of all its trials: the Pareto ranks
    and the spans of the objectives' axes come from it), or a mode or objectives that rank
    ``trials`` among themselves.
    """
    order = as_ranking(trials, ranking)
    drawn = {t.trial_id for t in trials}
    scored = sorted((t for t in order.scored if t.trial_id in drawn), key=lambda t: t.trial_id)
    scores = [trial_scores(t, order.objectives) or () for t in scored]
    axes = parameter_axes(space, scored)
    spans = order.spans
    ids = [t.trial_id for t in scored]
    if not order.several:
        objective = order.objectives[0]
        colors = [s[0] for s in scores]
        span = finite_span(spans.get(objective.name, (math.nan, math.nan)))
        axes.append(Axis(metric, colors, range=span))
        return ParallelCoordinates(axes, colors, ids, reverse_scale=objective.mode == "min", color_range=span)
    for index, objective in enumerate(order.objectives):
        values = [s[index] for s in scores]
        span = finite_span(spans.get(objective.name, (math.nan, math.nan)))
        axes.append(Axis(f"{objective.name} ({objective.mode})", values, range=span))
    colors = [float(order.pareto[t.trial_id]) for t in scored]
    top = max(1.0, *colors) if colors else 1.0
    return ParallelCoordinates(axes, colors, ids, reverse_scale=True, color_range=(0.0, top),
                               color_title=PARETO_RANK, color_ticks=integer_ticks(0.0, top, max_ticks=6))


def colour_position(score: float, low: float, high: float, reverse: bool) -> float:
    """Where ``score`` sits on the colour scale: in [0, 1], the best brightest (``reverse`` when
    lower is better)."""
    if high == low:
        return 1.0
    share = (score - low) / (high - low)
    return 1 - share if reverse else share


def _json_number(value: float) -> float | None:
    """JSON has no NaN: a missing value is null, which the renderer leaves out."""
    return value if math.isfinite(value) else None


def _dimension(axis: Axis) -> dict[str, Any]:
    dim: dict[str, Any] = {"label": axis.label, "values": [_json_number(v) for v in axis.values]}
    if axis.tickvals is not None:
        dim["tickvals"], dim["ticktext"] = axis.tickvals, axis.ticktext
    if axis.range is not None:
        dim["range"] = list(axis.range)
    return dim


def parcoords_trace(coords: ParallelCoordinates, selected: int | None = None) -> dict[str, Any]:
    """``coords`` as the renderer draws them: a plotly parcoords trace, ``ids`` (each line's trial)
    and, when the ``selected`` trial is drawn, ``selected`` (its line, drawn red over the others)."""
    low, high = coords.color_range
    ticks = coords.color_ticks if coords.color_ticks is not None else [low, (low + high) / 2, high]
    named = coords.color_title or (coords.axes[-1].label if coords.axes else "")
    colour_bar = {"title": {"text": named},
                  "tickvals": [colour_position(t, low, high, coords.reverse_scale) for t in ticks],
                  "ticktext": [f"{t:.4g}" for t in ticks]}
    line = {"color": [colour_position(c, low, high, coords.reverse_scale) for c in coords.colors],
            "colorscale": COLOUR_SCALE, "cmin": 0.0, "cmax": 1.0, "showscale": True, "colorbar": colour_bar}
    trace: dict[str, Any] = {"type": "parcoords", "dimensions": [_dimension(axis) for axis in coords.axes],
                             "line": line, "ids": list(coords.trial_ids)}
    if selected in coords.trial_ids:
        trace["selected"] = {"trial": selected, "index": coords.trial_ids.index(selected)}
    return trace


@dataclass(frozen=True)
class ParcoordsView:
    """The finished trace, and how many trials it draws of how many: the ``best`` best-ranked and
    ``sampled`` others of the ``scored`` ones."""

    trace: dict[str, Any]
    scored: int
    best: int
    sampled: int

    @property
    def lines(self) -> int:
        return len(self.trace["ids"])


def selected_line_view(space: SearchSpace | None, trials: Sequence[TrialRecord], metric: str,
                       ranking: SearchRanking, selected: int) -> ParcoordsView:
    """The line of trial ``selected`` alone, on the axes of the search (its space's parameters and
    the objectives' spans over every trial): what a view that drew the parallel coordinates without
    it adds over its lines when the axes are the same. No line when the trial has no score."""
    trial = [t for t in trials if t.trial_id == selected]
    coords = parallel_coordinates(space, trial, metric, ranking)
    return ParcoordsView(parcoords_trace(coords, selected), len(ranking.scored), 0, 0)


def parcoords_view(space: SearchSpace | None, trials: Sequence[TrialRecord], metric: str,
                   ranking: Ranking | SearchRanking, selected: int | None = None,
                   best: int = PARCOORDS_BEST, sample: int = PARCOORDS_SAMPLE) -> ParcoordsView:
    """The parallel coordinates of a search's ``trials``, ranked by ``ranking`` (see
    :func:`parallel_coordinates`): the ``best`` best-ranked trials, an even ``sample`` of the other
    scored ones and the ``selected`` trial, its line marked."""
    order = as_ranking(trials, ranking)
    chosen = parcoords_sample(trials, order, best, sample, selected)
    coords = parallel_coordinates(space, chosen.trials, metric, order)
    return ParcoordsView(parcoords_trace(coords, selected), chosen.scored, chosen.best, chosen.sampled)
