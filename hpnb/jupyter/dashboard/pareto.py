"""What the dashboard shows of a search with several objectives (pure data, no widgets).

The front, the ranks and the order of the trials are the summary's
(:mod:`hpnb.core.summary`); the points of the Pareto plot are
:func:`hpnb.core.analysis.pareto_view.pareto_view`'s: this module only words them and splits
them into what is drawn (the front's points, the others faded, the line through the front
of the pair shown, the selected trial).

Example:
    >>> from hpnb.core.objectives import Objective
    >>> from hpnb.jupyter.dashboard.data import Header
    >>> h = Header("two", "random", "loss", "min", "COMPLETED", 9, 9, 0, 9, 0, 0, 1.0, None, None, None,
    ...            objectives=(Objective("loss"), Objective("latency")), front_size=5)
    >>> front_text(h)
    'Pareto front: 5 trials (loss min, latency min)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hpnb.core.analysis.pareto_view import MAX_POINTS, ParetoView, pareto_view
from hpnb.core.objectives import Objective
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import ranked, trial_scores
from hpnb.jupyter.dashboard.data import Header, format_value
from hpnb.jupyter.dashboard.insight import even_sample
from hpnb.jupyter.server.bounded import PARCOORDS_BEST, PARCOORDS_SAMPLE, ParcoordsSample

#: how a note names the objective the history, curves, slices and contour follow.
FIRST_OBJECTIVE = "first objective"


def goals(objectives: Sequence[Objective]) -> str:
    """``val_loss min, latency_ms min``: the objectives and their directions, short."""
    return ", ".join(f"{o.name} {o.mode}" for o in objectives)


def front_text(header: Header, named: int = 0) -> str:
    """What the header says instead of a best value: the size of the front and its objectives,
    then the ids of its first ``named`` trials (and how many more)."""
    size = header.front_size
    count = "none yet" if not size else "1 trial" if size == 1 else f"{size} trials"
    text = f"Pareto front: {count} ({goals(header.objectives)})"
    ids = [str(entry["trial_id"]) for entry in header.front[:named]]
    if ids:
        more = size - len(ids)
        text += f": trial{'s' if size > 1 else ''} {', '.join(ids)}"
        text += f" and {more} more" if more > 0 else ""
    return text


def first_objective_note(header: Header) -> str:
    """Why the history and curves show one objective of several."""
    return (f"the history and curves follow the {FIRST_OBJECTIVE}, {header.metric} "
            "(early stopping judges it)")


def target_label(header: Header) -> str:
    """The name of what the history, curves, slices and contour draw: the metric, marked as the
    first objective when there are several."""
    return f"{header.metric} ({FIRST_OBJECTIVE})" if header.is_multi_objective else header.metric


@dataclass(frozen=True)
class ParetoGroup:
    """Markers of the Pareto plot: positions, the trial of each (for a click) and their hover text."""

    x: list[float] = field(default_factory=list)
    y: list[float] = field(default_factory=list)
    trial_ids: list[int] = field(default_factory=list)
    hover: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ParetoPlot:
    """Two objectives against each other, as drawn.

    Attributes:
        front: the trials of rank 0 (over all the objectives), highlighted.
        others: the trials of the other ranks, faded.
        line_x, line_y: the steps through the front of these two objectives, along ``x``.
        line_shape: plotly's step shape of that line ("hv" or "vh", by the modes).
        selected: where the selected trial is, if it has both values.
        shown, scored: points drawn, and trials with every objective's value.
    """

    x: Objective
    y: Objective
    front: ParetoGroup
    others: ParetoGroup
    line_x: list[float]
    line_y: list[float]
    line_shape: str
    selected: tuple[float, float] | None
    shown: int
    scored: int


def _hover(trial_id: int, rank: int, view: ParetoView, x: float, y: float) -> str:
    where = "on the front" if rank == 0 else f"Pareto rank {rank}"
    return (f"trial {trial_id} ({where})<br>{view.x.name} {format_value(x)}<br>"
            f"{view.y.name} {format_value(y)}")


def _position(trial: TrialRecord | None, objectives: Sequence[Objective],
              x: Objective, y: Objective) -> tuple[float, float] | None:
    scores = None if trial is None else trial_scores(trial, objectives)
    if scores is None:
        return None
    value = dict(zip((o.name for o in objectives), scores, strict=True))
    return value[x.name], value[y.name]


def pareto_plot(trials: Sequence[TrialRecord], objectives: Sequence[Objective], x: str | None = None,
                y: str | None = None, selected: int | None = None, limit: int = MAX_POINTS) -> ParetoPlot:
    """The Pareto plot of objective ``x`` against ``y`` (default: the first two).

    Raises:
        HpnbError: as :func:`~hpnb.core.analysis.pareto_view.pareto_view` (an unknown or repeated objective).
    """
    view = pareto_view(trials, objectives, x, y, limit)
    groups: tuple[ParetoGroup, ParetoGroup] = (ParetoGroup(), ParetoGroup())
    for point in view.points:
        group = groups[0 if point.rank == 0 else 1]
        group.x.append(point.x)
        group.y.append(point.y)
        group.trial_ids.append(point.trial_id)
        group.hover.append(_hover(point.trial_id, point.rank, view, point.x, point.y))
    by_id = {t.trial_id: t for t in trials}
    line = [p for p in (_position(by_id.get(i), objectives, view.x, view.y) for i in view.front) if p]
    where = _position(by_id.get(selected), objectives, view.x, view.y) if selected is not None else None
    return ParetoPlot(view.x, view.y, groups[0], groups[1], [p[0] for p in line], [p[1] for p in line],
                      "hv" if view.x.mode == "min" else "vh", where, len(view.points), view.scored)


def front_sample(trials: Sequence[TrialRecord], objectives: Sequence[Objective], best: int = PARCOORDS_BEST,
                 sample: int = PARCOORDS_SAMPLE, selected: int | None = None) -> ParcoordsSample:
    """What parallel coordinates draw with several objectives: the ``best`` first trials of the
    summary's order (Pareto rank, then crowding), an even ``sample`` of the others with every
    value (by trial id, so it stays put between redraws), and the ``selected`` trial."""
    scored = [t for t in ranked(trials, objectives) if trial_scores(t, objectives) is not None]
    top = scored[:best]
    rest = even_sample(sorted(scored[best:], key=lambda t: t.trial_id), sample)
    chosen = top + rest
    if selected is not None and all(t.trial_id != selected for t in chosen):
        chosen += [t for t in scored if t.trial_id == selected]
    return ParcoordsSample(chosen, len(scored), len(top), len(rest))
