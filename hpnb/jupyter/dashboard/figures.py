"""The dashboard's plots of metric curves, parallel coordinates, PBT lineage and the Pareto front.

``make_*`` build a :class:`~hpnb.jupyter.dashboard.plot.Plot` (any thread); ``update_*`` draw
on it the pure values of :mod:`~hpnb.jupyter.dashboard.data` and
:mod:`~hpnb.jupyter.dashboard.axes`, one message to the front end per redraw. The number of
traces never depends on the number of trials: curves are drawn as five line traces (one per
group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hpnb.jupyter.dashboard.axes import Axis, ParallelCoordinates
from hpnb.jupyter.dashboard.data import CURVE_GROUPS, CurveGroup
from hpnb.jupyter.dashboard.insight_figures import integer_axis, title
from hpnb.jupyter.dashboard.pareto import ParetoGroup, ParetoPlot
from hpnb.jupyter.dashboard.plot import Plot
from hpnb.jupyter.dashboard.scales import value_range, waiting_layout

#: line style of each curve group: (colour, width, opacity).
CURVE_STYLES: dict[str, tuple[str, float, float]] = {
    "faded": ("#9e9e9e", 1.0, 0.35),
    "completed": ("#4c78a8", 1.2, 0.55),
    "running": ("#f58518", 2.2, 1.0),
    "best": ("#2ca02c", 3.5, 1.0),
    "selected": ("#d62728", 3.5, 1.0),
}
_LEGEND = {"faded": "stopped / failed", "completed": "completed", "running": "running",
           "best": "best", "selected": "selected"}
_HEIGHT = 320


def make_curves_figure() -> Plot:
    """The curves plot: one line trace per curve group."""
    return Plot(layout={"height": _HEIGHT, "margin": {"l": 50, "r": 10, "t": 30, "b": 40},
                        "xaxis": {"title": title("step")}, "legend": {"orientation": "h", "y": 1.12}})


def update_curves(fig: Plot, groups: Mapping[str, CurveGroup], metric: str, best_name: str = "best") -> None:
    """Draw ``groups`` of curves of ``metric``; the "best" group's legend reads ``best_name`` (the
    Pareto front, with several objectives)."""
    traces = []
    for group in CURVE_GROUPS:
        color, width, opacity = CURVE_STYLES[group]
        lines = groups[group]
        name = best_name if group == "best" else _LEGEND[group]
        traces.append({"type": "scatter", "mode": "lines", "name": name, "x": lines.x, "y": lines.y,
                       "text": lines.text, "line": {"color": color, "width": width}, "opacity": opacity,
                       "hovertemplate": "%{text}<br>step %{x}<br>%{y:.4g}<extra></extra>",
                       "connectgaps": False})
    steps = [x for group in groups.values() for x in group.x if x is not None]
    if not steps:
        fig.show([], waiting_layout("waiting for the first reported value"))
        return
    xaxis = integer_axis(min(steps), max(steps))  # steps are integers: no tick at 2.5
    values = [y for group in groups.values() for y in group.y]
    fig.show(traces, {"yaxis": {"title": title(metric), "range": value_range(values)}, "xaxis": xaxis})


#: Viridis, dark to bright; the best scores are drawn brightest whatever the mode.
VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")
COLOUR_SCALE = [[i / (len(VIRIDIS) - 1), colour] for i, colour in enumerate(VIRIDIS)]
SELECTED = "#d62728"


def _dimension(axis: Axis) -> dict[str, Any]:
    dim: dict[str, Any] = {"label": axis.label, "values": axis.values}
    if axis.tickvals is not None:
        dim["tickvals"], dim["ticktext"] = axis.tickvals, axis.ticktext
    if axis.range is not None:
        dim["range"] = list(axis.range)
    return dim


def colour_position(score: float, low: float, high: float, reverse: bool) -> float:
    """Where ``score`` sits on the colour scale: in [0, 1], the best brightest (``reverse`` when
    lower is better)."""
    if high == low:
        return 1.0
    share = (score - low) / (high - low)
    return 1 - share if reverse else share


def make_parcoords_figure() -> Plot:
    return Plot(layout={"height": _HEIGHT, "margin": {"l": 60, "r": 20, "t": 50, "b": 20}})


def update_parcoords(fig: Plot, coords: ParallelCoordinates, selected: int | None = None) -> None:
    """Draw ``coords``, one line per trial coloured by its score; the ``selected`` trial's line (if
    drawn) is red, over the others (as in the Lab view).

    The trace has plotly's parcoords shape, but ``parallel_coordinates.js`` draws it (a canvas, no
    WebGL: see there).
    """
    low, high = coords.color_range
    ticks = coords.color_ticks if coords.color_ticks is not None else [low, (low + high) / 2, high]
    named = coords.color_title or (coords.axes[-1].label if coords.axes else "")
    colour_bar = {"title": title(named),
                  "tickvals": [colour_position(t, low, high, coords.reverse_scale) for t in ticks],
                  "ticktext": [f"{t:.4g}" for t in ticks]}
    line = {"color": [colour_position(c, low, high, coords.reverse_scale) for c in coords.colors],
            "colorscale": COLOUR_SCALE, "cmin": 0.0, "cmax": 1.0, "showscale": True, "colorbar": colour_bar}
    trace: dict[str, Any] = {"type": "parcoords", "dimensions": [_dimension(axis) for axis in coords.axes],
                             "line": line}
    if selected in coords.trial_ids:
        trace["selected"] = {"trial": selected, "index": coords.trial_ids.index(selected)}
    fig.show([trace])


def make_lineage_figure() -> Plot:
    """The PBT view: one marker per (member, step), coloured by score; exploits as lines."""
    return Plot(layout={"height": _HEIGHT, "margin": {"l": 60, "r": 10, "t": 30, "b": 40},
                        "xaxis": {"title": title("step")}, "yaxis": {"title": title("member (trial)")}})


def update_lineage(fig: Plot, points: Sequence[tuple[float, float, float]],
                   exploits: Sequence[tuple[float, float, float, float]]) -> None:
    """``points``: (step, member, score); ``exploits``: (step, from member, step, to member)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x0, y0, x1, y1 in exploits:
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    steps, members = [p[0] for p in points], [p[1] for p in points]
    markers = {"type": "scatter", "mode": "markers", "name": "member", "x": steps, "y": members,
               "marker": {"color": [p[2] for p in points], "colorscale": "Viridis", "showscale": True,
                          "size": 7}}
    lines = {"type": "scatter", "mode": "lines", "name": "exploit", "x": xs, "y": ys,
             "line": {"color": "#d62728", "width": 1}}
    if not points:
        fig.show([], waiting_layout("waiting for the members' first reported values"))
        return
    # members are trial numbers and steps integers: integer ticks on both
    fig.show([markers, lines], {"xaxis": integer_axis(min(steps), max(steps)),
                                "yaxis": integer_axis(min(members), max(members))})


#: colours of the Pareto plot: the front, the other ranks (faded).
FRONT, OTHER_RANKS = "#2ca02c", "#9e9e9e"


def make_pareto_figure() -> Plot:
    """Two objectives against each other: the front highlighted, the other ranks faded."""
    return Plot(layout={"height": _HEIGHT + 40, "margin": {"l": 60, "r": 10, "t": 30, "b": 50},
                        "legend": {"orientation": "h", "y": 1.12}, "hovermode": "closest"})


def _markers(group: ParetoGroup, name: str, marker: dict[str, Any]) -> dict[str, Any]:
    """A marker trace whose points carry their trial id (a click on one selects that trial)."""
    return {"type": "scatter", "mode": "markers", "name": name, "x": group.x, "y": group.y,
            "customdata": group.trial_ids, "text": group.hover, "hovertemplate": "%{text}<extra></extra>",
            "marker": marker}


def update_pareto(fig: Plot, plot: ParetoPlot) -> None:
    """Draw ``plot``: the other ranks faded, the front's step line, the front's points, the selected
    trial circled in red (drawn in this order, the last on top)."""
    others = _markers(plot.others, "other ranks", {"size": 7, "color": OTHER_RANKS, "opacity": 0.45})
    line = {"type": "scatter", "mode": "lines", "name": f"front of {plot.x.name} and {plot.y.name}",
            "x": plot.line_x, "y": plot.line_y, "hoverinfo": "skip",
            "line": {"color": FRONT, "width": 2, "shape": plot.line_shape}}
    front = _markers(plot.front, "Pareto front", {"size": 10, "color": FRONT,
                                                  "line": {"width": 1, "color": "#1b5e20"}})
    chosen = [plot.selected] if plot.selected is not None else []
    mark = {"type": "scatter", "mode": "markers", "name": "selected", "x": [c[0] for c in chosen],
            "y": [c[1] for c in chosen], "hoverinfo": "skip",
            "marker": {"size": 15, "color": SELECTED, "symbol": "circle-open", "line": {"width": 3}}}
    shown = "" if plot.shown == plot.scored else f" ({plot.shown} of {plot.scored} trials shown)"
    fig.show([others, line, front, mark], {
        "xaxis": {"title": title(f"{plot.x.name} ({plot.x.mode})")},
        "yaxis": {"title": title(f"{plot.y.name} ({plot.y.mode}){shown}")},
    })
