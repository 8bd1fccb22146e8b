"""The plotly figures of the dashboard: metric curves, parallel coordinates, PBT lineage.

``make_*`` build a FigureWidget (main thread); ``update_*`` set its data from
the pure values of :mod:`~hpnb.jupyter.dashboard.data` and
:mod:`~hpnb.jupyter.dashboard.axes` inside one ``batch_update`` so each refresh
is one message to the front end. The number of traces never depends on the
number of trials: curves are drawn as five line traces (one per group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hpnb.jupyter.dashboard.axes import Axis, ParallelCoordinates
from hpnb.jupyter.dashboard.data import CURVE_GROUPS, CurveGroup

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


def make_curves_figure() -> Any:
    """An empty curves plot with one trace per curve group."""
    import plotly.graph_objects as go

    fig = go.FigureWidget()
    for group in CURVE_GROUPS:
        color, width, opacity = CURVE_STYLES[group]
        fig.add_scatter(x=[], y=[], mode="lines", name=_LEGEND[group], line={"color": color, "width": width},
                        opacity=opacity, hovertemplate="%{text}<br>step %{x}<br>%{y:.4g}<extra></extra>",
                        connectgaps=False)
    fig.update_layout(height=_HEIGHT, margin={"l": 50, "r": 10, "t": 30, "b": 40},
                      xaxis_title="step", legend={"orientation": "h", "y": 1.12}, template="plotly_white")
    return fig


def update_curves(fig: Any, groups: Mapping[str, CurveGroup], metric: str) -> None:
    with fig.batch_update():
        for trace, group in zip(fig.data, CURVE_GROUPS):
            data = groups[group]
            trace.x, trace.y, trace.text = data.x, data.y, data.text
        fig.layout.yaxis.title.text = metric


def _dimension(axis: Axis) -> dict[str, Any]:
    dim: dict[str, Any] = {"label": axis.label, "values": axis.values}
    if axis.tickvals is not None:
        dim["tickvals"], dim["ticktext"] = axis.tickvals, axis.ticktext
    if axis.range is not None:
        dim["range"] = list(axis.range)
    return dim


def make_parcoords_figure() -> Any:
    import plotly.graph_objects as go

    fig = go.FigureWidget(go.Parcoords(dimensions=[]))
    fig.update_layout(height=_HEIGHT, margin={"l": 60, "r": 60, "t": 50, "b": 20}, template="plotly_white")
    return fig


def update_parcoords(fig: Any, coords: ParallelCoordinates) -> None:
    with fig.batch_update():
        trace = fig.data[0]
        trace.dimensions = [_dimension(axis) for axis in coords.axes]
        trace.line = {"color": coords.colors, "colorscale": "Viridis", "showscale": True,
                      "reversescale": coords.reverse_scale}


def make_lineage_figure() -> Any:
    """The PBT view: one marker per (member, step), coloured by score; exploits as lines."""
    import plotly.graph_objects as go

    fig = go.FigureWidget()
    fig.add_scatter(x=[], y=[], mode="markers", name="member",
                    marker={"color": [], "colorscale": "Viridis", "showscale": True, "size": 7})
    fig.add_scatter(x=[], y=[], mode="lines", name="exploit", line={"color": "#d62728", "width": 1})
    fig.update_layout(height=_HEIGHT, margin={"l": 60, "r": 10, "t": 30, "b": 40}, xaxis_title="step",
                      yaxis_title="member (trial)", template="plotly_white")
    return fig


def update_lineage(fig: Any, points: Sequence[tuple[float, float, float]],
                   exploits: Sequence[tuple[float, float, float, float]]) -> None:
    """``points``: (step, member, score); ``exploits``: (step, from member, step, to member)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x0, y0, x1, y1 in exploits:
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    with fig.batch_update():
        fig.data[0].x = [p[0] for p in points]
        fig.data[0].y = [p[1] for p in points]
        fig.data[0].marker.color = [p[2] for p in points]
        fig.data[1].x, fig.data[1].y = xs, ys
