"""The dashboard's plots, one at a time behind a selector: Pareto front (several objectives),
History, Curves, Parallel coordinates, Importance, Slices, Contour, Lineage.

Only the plot shown is drawn, and a plot is made the first time it is shown: the dashboard
is displayed without any (the first is drawn once the cell has returned) and a large search
sends only the plots a user looks at. The cheap ones (history, curves, parallel
coordinates, slices, lineage) are drawn by the refresh; importance and the
contour, which fit a model to the trials, run on a thread of their own
(:class:`~.analysis_panels.AnalysisPanels`) and only while their tab is shown, so the
kernel's main thread never waits for them. Options appear when
they make sense: the Pareto front (shown first) with several objectives, Curves once
a trial reported a metric twice, the analyses when the search space is known, Lineage
for population-based training. With several objectives the history, curves, slices and
contour follow the first objective (the one early stopping judges), and say so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from hpnb.core.analysis.history import optimization_history
from hpnb.core.analysis.slices import parameter_slices
from hpnb.core.errors import HpnbError
from hpnb.core.objectives import Objective
from hpnb.jupyter.dashboard import data, figures, insight_figures, pareto_plot, plot_samples
from hpnb.jupyter.dashboard.analysis_panels import CONTOUR, EVALUATOR_TITLES, IMPORTANCE, AnalysisPanels
from hpnb.jupyter.dashboard.model import DashboardModel, View
from hpnb.jupyter.dashboard.panels import DRAWING, PairSelector, note_html, set_visible
from hpnb.jupyter.dashboard.plotly_code import shared_plotly_code
from hpnb.jupyter.dashboard.tab_bar import TabBar
from hpnb.views.parcoords import parcoords_view
from hpnb.views.ranking import as_ranking
from hpnb.views.sampling import curve_trials

HISTORY, CURVES, PARCOORDS = "History", "Curves", "Parallel coordinates"
SLICES, LINEAGE, PARETO = "Slices", "Lineage", "Pareto front"
#: curves of at most this many trials are drawn (the selected, running ones, then the best).
CURVE_TRIALS = 50
#: how the history's x axis can run: (label, order of :func:`optimization_history`).
HISTORY_ORDERS = (("by trial number", "trial"), ("by end time", "end"))
MAKERS: dict[str, Callable[[], Any]] = {
    HISTORY: insight_figures.make_history_figure, CURVES: figures.make_curves_figure,
    PARCOORDS: figures.make_parcoords_figure, IMPORTANCE: insight_figures.make_importance_figure,
    SLICES: insight_figures.make_slice_figure, CONTOUR: insight_figures.make_contour_figure,
    LINEAGE: figures.make_lineage_figure, PARETO: figures.make_pareto_figure,
}


class InsightTabs:
    """The selector, the panel shown under it, and how each panel is drawn from a :class:`View`.

    Args:
        model: what the dashboard read from the store.
        strategy: the search's strategy (Lineage is for ``pbt``).
        selected: the trial selected in the table, or None.
        objectives: what the search optimises (several: the Pareto front is shown first).
        select: selects a trial (a click on a point of the Pareto front), or None for no selection.
    """

    def __init__(self, model: DashboardModel, strategy: str, selected: Callable[[], int | None],
                 objectives: Sequence[Objective] = (),
                 select: Callable[[int | None], None] | None = None) -> None:
        self.model = model
        self.selected = selected
        self.select = select
        self.is_pbt = strategy == "pbt"
        self.objectives = tuple(objectives)
        first = PARETO if len(self.objectives) > 1 else HISTORY
        self.selector = TabBar(options=[first], value=first)
        self.selector.add_class("hpnb-plot-selector")
        self.metric = widgets.Dropdown(description="metric", options=[""], layout={"display": "none"})
        self.parameter = widgets.Dropdown(description="parameter", options=self._parameters())
        self.history_order = widgets.ToggleButtons(options=HISTORY_ORDERS, value="trial",
                                                   style={"button_width": "auto"})
        self.history_order.add_class("hpnb-history-order")
        self.pair = PairSelector(self.objectives)
        self.evaluator = widgets.Dropdown(description="evaluator", options=list(EVALUATOR_TITLES.items()),
                                          value="fanova")
        #: the figure of each plot made so far (see :meth:`figure`).
        self.figures: dict[str, Any] = {}
        self.notes = {name: widgets.HTML(note_html(DRAWING)) for name in MAKERS}
        extra = {HISTORY: [self.history_order], CURVES: [self.metric], SLICES: [self.parameter],
                 PARETO: [self.pair.box], IMPORTANCE: [self.evaluator]}
        self.panels = {name: widgets.VBox([*extra.get(name, []), self.notes[name]]) for name in MAKERS}
        self.body = widgets.VBox([self.panels[first]], layout={"width": "100%"})
        # plotly.js reaches the page with the dashboard, before any plot is made
        self.box = widgets.VBox([self.selector, self.body, shared_plotly_code()])
        self._view: View | None = None
        self._sent: dict[str, Any] = {}
        self._lock = threading.RLock()
        #: whether plots are drawn: not while the dashboard is first displayed (see :meth:`render`).
        self._drawing = False
        self._analysis = AnalysisPanels(model.space, self._last_shown, self.figure, self.notes,
                                        evaluator=lambda: str(self.evaluator.value))
        self.selector.observe(lambda _: self._show(), names="value")
        for choice in (self.metric, self.parameter, self.history_order, self.pair.x, self.pair.y,
                       self.evaluator):
            choice.observe(lambda _: self.redraw(), names="value")

    def figure(self, name: str) -> Any:
        """The figure of plot ``name``, made (and put in its panel) on first use; any thread."""
        with self._lock:
            fig = self.figures.get(name)
            if fig is None:
                fig = self.figures[name] = MAKERS[name]()
                if name == PARETO:
                    fig.on_click = self._clicked
                panel = self.panels[name]
                panel.children = (*panel.children, fig)
                if self.notes[name].value == note_html(DRAWING):
                    self.notes[name].value = ""
            return fig

    @property
    def shown(self) -> str:
        """The plot whose tab the user chose (the first tab before any choice)."""
        return str(self.selector.value)

    def _last_shown(self) -> tuple[View | None, str]:
        """The last view and the plot shown (what the analyses draw)."""
        return self._view, self.shown

    def _parameters(self) -> list[str]:
        space = self.model.space
        return [p.name for p in space.free] if space is not None else []

    @property
    def is_multi_objective(self) -> bool:
        return len(self.objectives) > 1

    def _clicked(self, trial_id: int) -> None:
        """A point of the Pareto plot was clicked: select its trial (again: select none)."""
        if self.select is not None:
            self.select(None if trial_id == self.selected() else trial_id)

    def _options(self) -> list[str]:
        options = [PARETO] if self.is_multi_objective else []
        options.append(HISTORY)
        if self.model.curves.has_steps:
            options.append(CURVES)
        options.append(PARCOORDS)
        if self.model.space is not None and self.model.space.free:
            options += [IMPORTANCE, SLICES]
            if len(self._parameters()) >= 2:
                options.append(CONTOUR)
        if self.is_pbt:
            options.append(LINEAGE)
        return options

    def _show(self) -> None:
        """Show the chosen panel and hide the others (a click on the selector)."""
        with self._lock:
            self._join(self.shown)
            for name, panel in self.panels.items():
                if panel in self.body.children:
                    set_visible(panel, name == self.shown)
            self._drawing = True
        self.redraw()

    def _join(self, name: str) -> None:
        """Put panel ``name`` on the page, hidden. A panel joins the page once and never leaves it;
        hidden, it stays laid out at its width (with no height), so that its plot can be drawn
        before it is shown (see :meth:`predraw`)."""
        panel = self.panels[name]
        if panel not in self.body.children:
            set_visible(panel, False)
            self.body.children = (*self.body.children, panel)

    def render(self, view: View, draw: bool = True) -> None:
        """Remember ``view`` and draw the panel shown (any thread). With ``draw`` False (the
        dashboard's first render, in the cell) nothing is drawn until a later render or a click."""
        with self._lock:
            self._drawing = self._drawing or draw
            self._view = view
            options = self._options()
            if list(self.selector.options) != options:
                self.selector.options = options  # tabs only join: the chosen one stays, never set here
            metrics = view.metrics
            if tuple(self.metric.options) != tuple(metrics) and metrics:
                current = self.metric.value
                self.metric.options = metrics
                self.metric.value = current if current in metrics else metrics[0]
            self.metric.layout.display = "" if len(metrics) > 1 else "none"
        self.redraw()

    def redraw(self) -> None:
        """Draw the panel shown from the last view (after a click: a new tab, a selection)."""
        with self._lock:
            view = self._view
            if view is None or not self._drawing:
                return
            if self.shown in (IMPORTANCE, CONTOUR):
                self._analysis.request()
            else:
                self._draw(self.shown, view)

    def predraw(self) -> None:
        """Draw the parallel coordinates while another plot is shown (once the dashboard is up,
        when the page is idle): a click on them then only shows them, with no wait for the kernel
        to sample and send 1,250 lines."""
        with self._lock:
            view = self._view
            if view is None or PARCOORDS not in self.selector.options or PARCOORDS in self.figures:
                return
            self._join(PARCOORDS)
            self._draw(PARCOORDS, view)

    def _draw(self, name: str, view: View) -> None:
        draw = {HISTORY: self._history, CURVES: self._curves, PARCOORDS: self._parcoords,
                SLICES: self._slices, LINEAGE: self._lineage, PARETO: self._pareto}.get(name)
        # the history, parallel coordinates and slices change with the trials only, not with results
        version = view.version if name in (CURVES, LINEAGE) else view.trials_version
        choices = (self.metric.value, self.parameter.value, self.history_order.value, self.pair.x.value,
                   self.pair.y.value)
        signature = (version, self.selected(), *choices)
        if draw is not None and self._changed(name, signature):
            draw(view)  # what is drawn changes only with the data, the selection or a choice

    def _changed(self, part: str, signature: Any) -> bool:
        if self._sent.get(part) == signature:
            return False
        self._sent[part] = signature
        return True

    @staticmethod
    def _note(view: View, text: str = "") -> str:
        """``text`` as a note, after the reminder that the first of several objectives is shown."""
        summary = view.header.summary
        parts = [pareto_plot.first_objective_note(summary)] if summary.is_multi_objective else []
        return note_html("; ".join([*parts, text] if text else parts)) if parts or text else ""

    def _history(self, view: View) -> None:
        order = self.history_order.value
        points = optimization_history(view.trials, view.header.summary.mode, order=order)
        selected = self.selected()
        plot = plot_samples.history_plot(points, selected, order=order)
        fig = self.figure(HISTORY)
        empty = "" if points else "no trial has finished with a score yet"
        self.notes[HISTORY].value = self._note(view, empty)
        insight_figures.update_history(fig, plot, pareto_plot.target_label(view.header.summary), selected)

    def _curves(self, view: View) -> None:
        metric = self.metric.value or view.header.summary.metric
        selected = self.selected()
        summary = view.header.summary
        # several objectives: the front's trials are drawn first and stand out, as the best one does
        ranking = as_ranking(view.trials, view.header.ranking)
        best = ({t for t, rank in ranking.pareto.items() if rank == 0} if summary.is_multi_objective
                else {summary.best_trial} if summary.best_trial is not None else set())
        chosen = curve_trials(view.trials, ranking, summary.state, selected, CURVE_TRIALS)
        groups = data.curve_groups(self.model.curves, chosen, metric, best, selected)
        fig = self.figure(CURVES)
        self.notes[CURVES].value = self._note(view)
        label = pareto_plot.target_label(summary) if metric == summary.metric else metric
        figures.update_curves(fig, groups, label,
                              best_name="Pareto front" if summary.is_multi_objective else "best")

    def _pareto(self, view: View) -> None:
        objectives = view.header.summary.objectives
        if len(objectives) < 2:
            return
        fig = self.figure(PARETO)
        try:
            plot = pareto_plot.pareto_plot(view.trials, objectives, self.pair.x.value, self.pair.y.value,
                                      self.selected())
        except HpnbError as err:  # the pair cannot be drawn: said where the plot would be
            self.notes[PARETO].value = note_html(str(err))
            return
        self.notes[PARETO].value = "" if plot.scored else note_html(
            "no trial has a value for every objective yet")
        figures.update_pareto(fig, plot)

    def _parcoords(self, view: View) -> None:
        selected = self.selected()
        drawn = parcoords_view(self.model.space, view.trials, view.header.summary.metric, view.header.ranking,
                               selected)
        shown = f"the best {drawn.best} and {drawn.sampled} others of {drawn.scored} trials"
        self.notes[PARCOORDS].value = note_html(shown) if drawn.scored > drawn.best else ""
        figures.update_parcoords(self.figure(PARCOORDS), drawn.trace)

    def _slices(self, view: View) -> None:
        space = self.model.space
        name = self.parameter.value
        if space is None or not name:
            return
        chosen = [s for s in parameter_slices(view.trials, space) if s.axis.name == name]
        if not chosen:
            return
        plot = plot_samples.slice_plot(chosen[0])
        selected = self.selected()
        self.notes[SLICES].value = "" if plot.x else note_html("no trial has finished with a score yet")
        label = pareto_plot.target_label(view.header.summary)
        insight_figures.update_slice(self.figure(SLICES), plot, label, selected)

    def _lineage(self, view: View) -> None:
        metric = view.header.summary.metric
        lineage = data.lineage(self.model.curves, view.trials, metric)
        figures.update_lineage(self.figure(LINEAGE), lineage.points,
                               figures.exploit_links(view.events) or lineage.exploits, metric)

    def close(self) -> None:
        self._analysis.close()
