"""The dashboard's plots of the optimization history, importance, slices and contour.

Like :mod:`~hpnb.jupyter.dashboard.figures`: ``make_*`` build a
:class:`~hpnb.jupyter.dashboard.plot.Plot` (any thread), ``update_*`` draw on it in one
message. Integer axes get integer ticks, log-scaled parameters log axes, categorical ones
their choices in the spec's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from hpnb.core.analysis.slices import Axis, ContourData
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard.axes import integer_step
from hpnb.jupyter.dashboard.insight import HistoryPlot, SlicePlot
from hpnb.jupyter.dashboard.plot import Plot
from hpnb.jupyter.dashboard.scales import value_range, waiting_layout

_HEIGHT = 340
_MARGIN = {"l": 60, "r": 20, "t": 40, "b": 50}
STATE_COLORS = {TrialState.COMPLETED.value: "#4c78a8", TrialState.STOPPED.value: "#9e9e9e"}
SELECTED = "#d62728"
#: tick labels of a log axis: one format for every tick (plotly mixes "100µ" and "0.001").
LOG_TICKS = ".2~e"


def title(text: str) -> dict[str, str]:
    """An axis or plot title, as plotly.js reads it."""
    return {"text": text}


def _plot(**layout: Any) -> Plot:
    return Plot(layout={"height": _HEIGHT, "margin": _MARGIN, **layout})


def integer_axis(low: float, high: float) -> dict[str, Any]:
    """Layout of an axis of integers on ``low..high``: ticks on integers only."""
    return {"tickmode": "linear", "tick0": 0, "dtick": integer_step(low, high), "tickformat": "d"}


def make_history_figure() -> Plot:
    """Each finished trial's score against its number (or its end time), and the best so far."""
    return _plot(xaxis={"title": title("trial")}, legend={"orientation": "h", "y": 1.12})


def plot_time(epoch: float) -> str:
    """An epoch time as plotly reads a date: local wall-clock time, to the millisecond."""
    return datetime.fromtimestamp(epoch).isoformat(sep=" ", timespec="milliseconds")


def _history_x_axis(plot: HistoryPlot) -> dict[str, Any]:
    if plot.order == "end":
        return {"type": "date", "title": title("end time")}
    axis: dict[str, Any] = {"type": "linear", "title": title("trial")}
    if plot.trial_ids:
        axis.update(integer_axis(min(plot.trial_ids), max(plot.trial_ids)))
    return axis


def update_history(fig: Plot, plot: HistoryPlot, metric: str, selected: int | None) -> None:
    def shown(values: Sequence[float]) -> list[Any]:
        return [plot_time(v) for v in values] if plot.order == "end" else list(values)

    chosen = [(x, y) for x, y, t in zip(plot.x, plot.scores, plot.trial_ids) if t == selected]
    label = metric if plot.shown == plot.total else f"{metric} ({plot.shown} of {plot.total} trials shown)"
    markers = {"type": "scatter", "mode": "markers", "name": "trial", "x": shown(plot.x), "y": plot.scores,
               "text": plot.hover, "hovertemplate": "%{text}<br>%{y:.4g}<extra></extra>",
               "marker": {"size": 6, "color": [STATE_COLORS.get(state, "#4c78a8") for state in plot.states]}}
    best = {"type": "scatter", "mode": "lines", "name": "best so far", "x": shown(plot.best_x),
            "y": plot.best_y, "line": {"color": "#2ca02c", "width": 2.5, "shape": "hv"}}
    mark = {"type": "scatter", "mode": "markers", "name": "selected", "x": shown([c[0] for c in chosen]),
            "y": [c[1] for c in chosen],
            "marker": {"size": 12, "color": SELECTED, "symbol": "circle-open", "line": {"width": 3}}}
    if not plot.scores:
        fig.show([], waiting_layout("waiting for the first trial to finish with a score"))
        return
    yaxis = {"title": title(label), "range": value_range([*plot.scores, *plot.best_y])}
    fig.show([markers, best, mark], {"yaxis": yaxis, "xaxis": _history_x_axis(plot)})


def make_importance_figure() -> Plot:
    return _plot(xaxis={"title": title("importance (share of the score's variance)")}, showlegend=False)


def update_importance(fig: Plot, importance: Mapping[str, float], heading: str) -> None:
    names = list(importance)[::-1]  # the most important on top
    bars = {"type": "bar", "orientation": "h", "x": [importance[name] for name in names], "y": names,
            "marker": {"color": "#4c78a8"}, "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"}
    xaxis = {"range": [0, max(1e-9, *importance.values()) * 1.05]} if importance else {}
    fig.show([bars], {"title": title(heading), "xaxis": xaxis})


#: one bar colour per objective (the first as with one objective), in turn.
OBJECTIVE_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2")


def update_importance_per_objective(fig: Plot, importance: Mapping[str, Mapping[str, float]],
                                    heading: str) -> None:
    """One bar set per objective (grouped, one colour each, named in the legend); the parameters in
    the order of the first objective's importance, the most important on top."""
    first = next(iter(importance.values()), {})
    names = list(first)[::-1]
    bars = [{"type": "bar", "orientation": "h", "name": objective, "y": names,
             "x": [rated.get(name, 0.0) for name in names],
             "marker": {"color": OBJECTIVE_COLORS[i % len(OBJECTIVE_COLORS)]},
             "hovertemplate": f"{objective}<br>%{{y}}: %{{x:.3f}}<extra></extra>"}
            for i, (objective, rated) in enumerate(importance.items())]
    top = max((v for rated in importance.values() for v in rated.values()), default=0.0)
    fig.show(bars, {"title": title(heading), "barmode": "group", "showlegend": True,
                    "xaxis": {"range": [0, max(1e-9, top) * 1.05]},
                    "height": max(_HEIGHT, 120 + 22 * len(names) * len(importance))})


def make_slice_figure() -> Plot:
    return _plot(showlegend=False)


def _parameter_axis(kind: str, log: bool, values: Sequence[Any], categories: Sequence[str]) -> dict[str, Any]:
    if kind == "categorical":
        return {"type": "category", "categoryorder": "array", "categoryarray": list(categories)}
    if log:
        return {"type": "log", "tickformat": LOG_TICKS}
    if kind == "int" and values:
        return {"type": "linear", **integer_axis(min(values), max(values))}
    return {"type": "linear"}


def update_slice(fig: Plot, plot: SlicePlot, metric: str, selected: int | None) -> None:
    chosen = [(x, y) for x, y, t in zip(plot.x, plot.y, plot.trial_ids) if t == selected]
    points = {"type": "scatter", "mode": "markers", "name": "trial", "x": plot.x, "y": plot.y,
              "marker": {"size": 7, "color": plot.trial_ids, "colorscale": "Blues", "showscale": True,
                         "colorbar": {"title": title("trial")}},
              "hovertemplate": "trial %{marker.color}<br>%{x}<br>%{y:.4g}<extra></extra>"}
    mark = {"type": "scatter", "mode": "markers", "name": "selected", "x": [c[0] for c in chosen],
            "y": [c[1] for c in chosen],
            "marker": {"size": 13, "color": SELECTED, "symbol": "circle-open", "line": {"width": 3}}}
    xaxis = {**_parameter_axis(plot.kind, plot.log, plot.x, plot.categories),
             "title": title(plot.name + (" (log)" if plot.log else ""))}
    if not plot.y:
        fig.show([], waiting_layout(f"waiting for the first trial to finish with a score for {plot.name}"))
        return
    yaxis = {"title": title(metric), "range": value_range(plot.y)}
    fig.show([points, mark], {"xaxis": xaxis, "yaxis": yaxis})


def make_contour_figure() -> Plot:
    return _plot(showlegend=False)


def _contour_axis(axis: Axis, positions: Sequence[float]) -> dict[str, Any]:
    named = title(axis.name + (" (log)" if axis.log else ""))
    if axis.kind == "categorical":
        ticks = list(range(len(axis.choices)))
        return {"type": "linear", "tickmode": "array", "tickvals": ticks,
                "ticktext": [str(c) for c in axis.choices], "title": named}
    if axis.log:
        return {"type": "log", "title": named, "tickformat": LOG_TICKS}
    if axis.kind == "int" and positions:
        return {"type": "linear", **integer_axis(min(positions), max(positions)), "title": named}
    return {"type": "linear", "title": named}


def update_contour(fig: Plot, contour: ContourData, metric: str) -> None:
    """The score over two parameters; with a categorical one, one band of cells per category (a
    heat-map: no colour is interpolated between categories)."""
    surface: dict[str, Any] = {
        "type": "contour", "x": contour.x_grid, "y": contour.y_grid, "z": contour.z, "colorscale": "Viridis",
        "contours": {"coloring": "heatmap"}, "colorbar": {"title": title(metric)},
        "hovertemplate": "%{z:.4g}<extra></extra>"}
    if "categorical" in (contour.x.kind, contour.y.kind):
        del surface["contours"]
        surface["type"] = "heatmap"
    trials = {"type": "scatter", "mode": "markers", "x": contour.x_values, "y": contour.y_values,
              "text": [str(t) for t in contour.trial_ids],
              "hovertemplate": "trial %{text}<br>%{x}, %{y}<extra></extra>",
              "marker": {"size": 6, "color": "white", "line": {"width": 1, "color": "black"}}}
    fig.show([surface, trials], {"xaxis": _contour_axis(contour.x, contour.x_grid),
                                 "yaxis": _contour_axis(contour.y, contour.y_grid),
                                 "title": title(f"{metric} over {contour.x.name} and {contour.y.name}")})
