"""The dashboard's widgets and how a :class:`~hpnb.jupyter.dashboard.model.View` is drawn on them.

All widgets are created in :class:`DashboardWidgets.__init__` (on the main
thread); :meth:`DashboardWidgets.render` only sets values, so it may run on the
refresh thread. Parts whose content did not change are not sent again.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from hpnb.jupyter.dashboard import data, figures
from hpnb.jupyter.dashboard.axes import parallel_coordinates
from hpnb.jupyter.dashboard.controls import Controls
from hpnb.jupyter.dashboard.model import DashboardModel, View

_STATE_COLORS = {"RUNNING": "#f58518", "COMPLETED": "#2ca02c", "STOPPED": "#7f7f7f", "FAILED": "#d62728",
                 "INTERRUPTED": "#9467bd", "CREATED": "#4c78a8"}
_STYLE = ("<style>.hpnb-mono select, .hpnb-mono option {font-family: var(--jp-code-font-family, monospace);"
          " font-size: 12px}</style>")
LEADERBOARD_ROWS = 50
EVENTS_SHOWN = 5


def title_html(header: data.Header) -> str:
    color = _STATE_COLORS.get(header.state, "#333")
    best = ("best: —" if header.best_value is None else
            f"best {html.escape(header.metric)} <b>{data.format_value(header.best_value)}</b> "
            f"(trial {header.best_trial}: {html.escape(data.format_params(header.best_params))})")
    goal = "min" if header.mode == "min" else "max"
    return (f"<b>{html.escape(header.name)}</b> &middot; {html.escape(header.strategy)} &middot; "
            f"{goal} {html.escape(header.metric)} &middot; "
            f"<span style='color:{color};font-weight:bold'>{header.state}</span><br>{best}"
            f"{message_html(header.message)}")


def message_html(message: str | None, lines: int = 3, width: int = 300) -> str:
    """The first lines of the search's message (why it failed or stopped, stuck workers)."""
    if not message:
        return ""
    shown = "\n".join(message.splitlines()[:lines])[:width]
    return f"<br><span style='color:#8c564b'>{html.escape(shown).replace(chr(10), '<br>')}</span>"


def counts_html(header: data.Header) -> str:
    return (f"{header.done}/{header.budget} done &middot; {header.running} running &middot; "
            f"{header.failed} failed &middot; {header.stopped} stopped &middot; "
            f"elapsed {data.format_duration(header.elapsed)} &middot; ETA {data.format_duration(header.eta)}")


def failures_html(failed: Sequence[data.Failure]) -> str:
    if not failed:
        return ""
    parts = [f"<b>{len(failed)} failed trial(s)</b>"]
    parts.extend(
        f"<details><summary>trial {f.trial_id} ({html.escape(data.format_params(f.params))})</summary>"
        f"<pre style='font-size:11px;max-height:300px;overflow:auto'>{html.escape(f.error)}</pre></details>"
        for f in failed
    )
    return "\n".join(parts)


def events_html(events: Sequence[dict[str, Any]]) -> str:
    shown = [e for e in events if e.get("kind") != "exploit"][-EVENTS_SHOWN:]
    if not shown:
        return ""
    items = []
    for event in shown:
        details = ", ".join(f"{k}={v}" for k, v in (event.get("data") or {}).items())
        items.append(html.escape(f"{event['kind']}" + (f" ({details})" if details else "")))
    return "<small>recent actions: " + " &middot; ".join(items) + "</small>"


class DashboardWidgets:
    """Every widget of one dashboard, laid out in :attr:`root`."""

    def __init__(self, model: DashboardModel, controls: Controls, strategy: str) -> None:
        self.model = model
        self.controls = controls
        self.title = widgets.HTML()
        self.progress = widgets.IntProgress(min=0, max=1, value=0, description="trials",
                                            layout={"width": "40%"})
        self.counts = widgets.HTML()
        self.metric = widgets.Dropdown(description="metric", options=[""], layout={"display": "none"})
        self.curves = figures.make_curves_figure()
        self.parcoords = figures.make_parcoords_figure()
        self.leaderboard = widgets.Select(options=[("(no trials yet)", -1)], rows=10,
                                          layout={"width": "100%"})
        self.leaderboard.add_class("hpnb-mono")
        self.failures = widgets.HTML()
        self.events = widgets.HTML()
        self.lineage = figures.make_lineage_figure() if strategy == "pbt" else None
        parts: list[Any] = [
            widgets.HTML(_STYLE), self.title, widgets.HBox([self.progress, self.counts]), controls.box,
            self.events, self.metric, self.curves, self.parcoords,
            widgets.HTML("<b>leaderboard</b> (select a trial to highlight its curve)"), self.leaderboard,
            self.failures,
        ]
        if self.lineage is not None:
            parts += [widgets.HTML("<b>population lineage</b>"), self.lineage]
        self.root = widgets.VBox(parts)
        self._sent: dict[str, Any] = {}

    def selected_trial(self) -> int | None:
        value = self.leaderboard.value
        return None if value is None or value < 0 else int(value)

    def _changed(self, part: str, signature: Any) -> bool:
        if self._sent.get(part) == signature:
            return False
        self._sent[part] = signature
        return True

    def render(self, view: View, live: bool) -> None:
        """Draw ``view``; only parts that changed are sent to the front end."""
        header = view.header
        self.title.value = title_html(header)
        self.progress.max = max(1, header.budget)
        self.progress.value = min(header.done, self.progress.max)
        self.counts.value = counts_html(header)
        self.events.value = events_html(view.events)
        self.failures.value = failures_html(view.failures)
        self._render_metrics(view.metrics)
        self._render_leaderboard(view)
        selected = self.selected_trial()
        running = {t.trial_id for t in view.trials if t.state == "RUNNING"}
        self.controls.update(header.state, live, selected in running)
        self.render_curves(view)
        coords = parallel_coordinates(self.model.space, view.trials, header.metric, header.mode)
        if self._changed("parcoords", (coords.trial_ids, coords.colors)):
            figures.update_parcoords(self.parcoords, coords)
        if self.lineage is not None:
            lineage = data.lineage(self.model.curves, view.trials, header.metric)
            if self._changed("lineage", (len(lineage.points), len(lineage.exploits))):
                figures.update_lineage(self.lineage, lineage.points, lineage.exploits)

    def _render_metrics(self, metrics: list[str]) -> None:
        if tuple(self.metric.options) != tuple(metrics) and metrics:
            current = self.metric.value
            self.metric.options = metrics
            self.metric.value = current if current in metrics else metrics[0]
        self.metric.layout.display = "" if len(metrics) > 1 else "none"

    def _render_leaderboard(self, view: View) -> None:
        names = self.model.param_names
        options = [(data.leaderboard_label(row, names), row.trial_id)
                   for row in view.leaderboard[:LEADERBOARD_ROWS]]
        if options and self._changed("leaderboard", tuple(options)):
            selected = self.leaderboard.value
            self.leaderboard.options = options
            ids = [trial_id for _, trial_id in options]
            self.leaderboard.value = selected if selected in ids else None

    def render_curves(self, view: View) -> None:
        metric = self.metric.value or view.header.metric
        groups = data.curve_groups(self.model.curves, view.trials, metric, view.header.best_trial,
                                   self.selected_trial())
        signature = (metric, tuple(len(g.x) for g in groups.values()),
                     tuple(tuple(g.y[-1:]) for g in groups.values()))
        if self._changed("curves", signature):
            figures.update_curves(self.curves, groups, metric)
