"""The dashboard's plots of metric curves, parallel coordinates, PBT lineage and the Pareto front.

``make_*`` build a :class:`~hpnb.jupyter.dashboard.plot.Plot` (any thread); ``update_*`` draw
on it the pure values of :mod:`~hpnb.jupyter.dashboard.data` and
:mod:`hpnb.views.parcoords`, one message to the front end per redraw. The number of
traces never depends on the number of trials: curves are drawn as five line traces (one per
group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hpnb.jupyter.dashboard.data import CURVE_GROUPS, CurveGroup
from hpnb.jupyter.dashboard.insight_figures import SELECTED, integer_axis, title
from hpnb.jupyter.dashboard.look import COLORS
from hpnb.jupyter.dashboard.pareto_plot import ParetoGroup, ParetoPlot
from hpnb.jupyter.dashboard.plot import Plot
from hpnb.jupyter.dashboard.scales import value_range, waiting_layout

#: line style of each curve group: (colour, width, opacity).
CURVE_STYLES: dict[str, tuple[str, float, float]] = {
    "faded": (COLORS["faded"], 1.0, 0.35),
    "completed": (COLORS["completed"], 1.2, 0.55),
    "running": (COLORS["running"], 2.2, 1.0),
    "best": (COLORS["best"], 3.5, 1.0),
    "selected": (COLORS["selected"], 3.5, 1.0),
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


def make_parcoords_figure() -> Plot:
    return Plot(layout={"height": _HEIGHT, "margin": {"l": 60, "r": 20, "t": 50, "b": 20}})


def update_parcoords(fig: Plot, trace: Mapping[str, Any]) -> None:
    """Draw the finished parallel coordinates (:func:`hpnb.views.parcoords.parcoords_view`'s
    trace: the renderer draws its lines on a canvas, the selected one red over the others)."""
    fig.show([trace])


def make_lineage_figure() -> Plot:
    """The PBT view: one marker per (member, step), coloured by score; exploits as lines. The legend
    sits above the plot, clear of the colour bar."""
    return Plot(layout={"height": _HEIGHT, "margin": {"l": 60, "r": 10, "t": 40, "b": 40},
                        "legend": {"orientation": "h", "y": 1.14, "x": 0},
                        "xaxis": {"title": title("step")}, "yaxis": {"title": title("member (trial)")}})


def exploit_links(events: Sequence[Mapping[str, Any]]) -> list[tuple[float, float, float, float]]:
    """Each recorded exploit as a short link where it happened: from the donor's line at the step
    it was copied from to the member's line at the step it exploited (donor step, donor, step,
    member)."""
    links = []
    for event in events:
        found = event.get("data") or {}
        if event.get("kind") != "exploit" or not isinstance(found, Mapping):
            continue
        try:
            step = float(found["step"])
            copied = found.get("donor_step")
            donor_step = step if copied is None else float(copied)
            links.append((donor_step, float(found["donor"]), step, float(found["member"])))
        except (KeyError, TypeError, ValueError):  # an older record without the fields
            continue
    return links


def update_lineage(fig: Plot, points: Sequence[tuple[float, float, float]],
                   exploits: Sequence[tuple[float, float, float, float]], metric: str = "score") -> None:
    """``points``: (step, member, score); ``exploits``: (step, from member, step, to member)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x0, y0, x1, y1 in exploits:
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    steps, members = [p[0] for p in points], [p[1] for p in points]
    markers = {"type": "scatter", "mode": "markers", "name": "member", "x": steps, "y": members,
               "marker": {"color": [p[2] for p in points], "colorscale": "Viridis", "showscale": True,
                          "size": 7, "colorbar": {"title": {"text": metric, "side": "right"}}}}
    lines = {"type": "scatter", "mode": "lines", "name": "exploit", "x": xs, "y": ys,
             "line": {"color": COLORS["selected"], "width": 1}}
    if not points:
        fig.show([], waiting_layout("waiting for the members' first reported values"))
        return
    # members are trial numbers and steps integers: integer ticks on both
    fig.show([markers, lines], {"xaxis": integer_axis(min(steps), max(steps)),
                                "yaxis": integer_axis(min(members), max(members))})


#: colours of the Pareto plot: the front, the other ranks (faded).
FRONT, OTHER_RANKS = COLORS["best"], COLORS["faded"]


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
