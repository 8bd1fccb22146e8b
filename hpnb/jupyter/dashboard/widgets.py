"""The dashboard's widgets and how a :class:`~hpnb.jupyter.dashboard.model.View` is drawn on them.

All widgets are created in :class:`DashboardWidgets.__init__` (on the main
thread); :meth:`DashboardWidgets.render` only sets values, so it may run on the
refresh thread. Parts whose content did not change are not sent again.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from hpnb.core.analysis.humane_time import duration
from hpnb.core.constraints import constraints_text
from hpnb.core.objectives import Objective
from hpnb.core.rank_states import RANKS_EVENT
from hpnb.core.repeats import spread_text
from hpnb.core.summary import SearchSummary
from hpnb.core.trial import ExperimentState, TrialState
from hpnb.jupyter.dashboard import data, pareto_plot, trial_log
from hpnb.jupyter.dashboard.controls import Controls, selected_state
from hpnb.jupyter.dashboard.copy_cell import COPY_BEST, CopyBestButton
from hpnb.jupyter.dashboard.event_words import event_text
from hpnb.jupyter.dashboard.look import STATE_COLORS
from hpnb.jupyter.dashboard.model import DashboardModel, View
from hpnb.jupyter.dashboard.ranks import rank_labels
from hpnb.jupyter.dashboard.table import table_page
from hpnb.jupyter.dashboard.table_widget import TrialTable
from hpnb.jupyter.dashboard.tabs import InsightTabs

EVENTS_SHOWN = 5


#: trials of the front the header names (the rest are counted).
FRONT_NAMED = 8


def front_html(summary: SearchSummary) -> str:
    """With several objectives, instead of a best value: the front's size, objectives and trials."""
    return f"<span class='hpnb-front'>{html.escape(pareto_plot.front_text(summary, FRONT_NAMED))}</span>"


def _goal(summary: SearchSummary) -> str:
    """``min val_loss``, or every objective's with several."""
    if summary.is_multi_objective:
        return ", ".join(f"{o.mode} {o.name}" for o in summary.objectives)
    return f"{'min' if summary.mode == 'min' else 'max'} {summary.metric}"


def strategy_text(summary: SearchSummary) -> str:
    """The strategy, and what ``auto`` chose and why: ``auto → gp: 40 trials, 6 continuous parameters``."""
    if summary.strategy_choice:
        return f"{summary.strategy} \u2192 {summary.strategy_choice}"
    return summary.strategy


def title_html(summary: SearchSummary) -> str:
    color = STATE_COLORS.get(summary.state.value, "#333")
    nothing = "best: — (no feasible trial yet)" if summary.infeasible else "best: —"
    spread = html.escape(spread_text(summary.best_runs, summary.best_std, data.format_value))
    best = (nothing if summary.best_value is None else
            f"best {html.escape(summary.metric)} <b>{data.format_value(summary.best_value)}</b>{spread} "
            f"(trial {summary.best_trial}: {html.escape(data.format_params(summary.best_params))})")
    if summary.is_multi_objective:
        best = front_html(summary)
    if summary.constraints:
        best += (f"<br><span class='hpnb-constraints'>constraints "
                 f"{html.escape(constraints_text(summary.constraints, summary.infeasible))}</span>")
    return (f"<b>{html.escape(summary.name)}</b> &middot; {html.escape(strategy_text(summary))} &middot; "
            f"{html.escape(_goal(summary))} &middot; "
            f"<span style='color:{color};font-weight:bold'>{summary.state.value}</span><br>{best}"
            f"{message_html(summary.message)}")


def message_html(message: str | None, lines: int = 3, width: int = 300) -> str:
    """The first lines of the search's message (why it failed or stopped, stuck workers)."""
    if not message:
        return ""
    shown = "\n".join(message.splitlines()[:lines])[:width]
    return f"<br><span style='color:#8c564b'>{html.escape(shown).replace(chr(10), '<br>')}</span>"


#: the states the counts line always names; the others only when some trial is in them.
ALWAYS_COUNTED = (TrialState.RUNNING, TrialState.FAILED, TrialState.STOPPED)
COUNTED = (TrialState.RUNNING, TrialState.PENDING, TrialState.PAUSED, ExperimentState.INTERRUPTED,
           TrialState.FAILED, TrialState.STOPPED)


def counts_html(header: data.Header) -> str:
    """Done of the budget, then how many trials are in each state (every state some trial is in),
    elapsed time and ETA."""
    summary = header.summary
    parts = [f"{summary.count(s)} {s.value.lower()}" for s in COUNTED
             if s in ALWAYS_COUNTED or summary.count(s)]
    if summary.limited_by:  # the resources let fewer run than parallel asks: "4 running, limited by gpu"
        parts[0] += f", limited by {html.escape(summary.limited_by)}"
    return " &middot; ".join([f"{summary.done}/{summary.budget} done", *parts,
                              f"elapsed {duration(summary.elapsed)}", f"ETA {duration(header.eta)}"])


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


#: events the "recent actions" line leaves out: exploits (the lineage tab), ranks (the trial's log).
_NOT_ACTIONS = ("exploit", RANKS_EVENT)


def events_html(events: Sequence[dict[str, Any]]) -> str:
    """The last few actions, newest last, in words (exploits have the lineage tab)."""
    shown = [e for e in events if e.get("kind") not in _NOT_ACTIONS][-EVENTS_SHOWN:]
    if not shown:
        return ""
    items = [html.escape(event_text(event)) for event in shown]
    return "<small>recent actions: " + " &middot; ".join(items) + "</small>"


class DashboardWidgets:
    """Every widget of one dashboard, laid out in :attr:`root`.

    Args:
        model: what the dashboard read from the store.
        controls: the control bar.
        strategy: the search's strategy (PBT gets the lineage tab).
        objectives: what the search optimises (several get the Pareto front).
    """

    def __init__(self, model: DashboardModel, controls: Controls, strategy: str,
                 objectives: Sequence[Objective] = ()) -> None:
        self.model = model
        self.controls = controls
        self.title = widgets.HTML()
        # the bar gives way first; the counts line never wraps (see table.css), so a refresh that
        # lengthens it never moves the controls, tabs and table under a pressed pointer
        self.progress = widgets.IntProgress(min=0, max=1, value=0, description="trials",
                                            layout={"flex": "0 1 40%", "min_width": "160px"})
        self.counts = widgets.HTML(layout={"flex": "0 0 auto", "max_width": "calc(100% - 170px)"})
        self.counts.add_class("hpnb-counts")
        self.failures = widgets.HTML()
        self.events = widgets.HTML()
        self.tabs = InsightTabs(model, strategy, self.selected_trial, objectives, select=self.select_trial)
        self.table = TrialTable()
        self.copy_best = CopyBestButton()
        self.log = widgets.HTML(trial_log.HINT)
        parts: list[Any] = [
            self.title, widgets.HBox([self.progress, self.counts]), controls.box, self.events, self.tabs.box,
            self._trials_box(), self.failures,
        ]
        self.root = widgets.VBox(parts)
        self.copy_best.anchor = self.root.model_id
        self._sent: dict[str, Any] = {}
        self._view: View | None = None

    def _trials_box(self) -> widgets.VBox:
        title = widgets.HTML("<b>trials</b> (click a header to sort, a row to select)")
        bar = widgets.HBox([title, self.copy_best], layout={"justify_content": "space-between"})
        box = widgets.VBox([bar, self.table, self.log])
        box.add_class("hpnb-trials")
        return box

    def selected_trial(self) -> int | None:
        return self.table.selected_trial

    def select_trial(self, trial_id: int | None) -> None:
        """Select ``trial_id`` (None: none) as a click on its row does."""
        self.table.selected = -1 if trial_id is None else trial_id

    def render(self, view: View, live: bool, plots: bool = True) -> None:
        """Draw ``view``; only parts that changed are sent to the front end. Without ``plots``
        the plots are left for a later render (see :meth:`InsightTabs.render`)."""
        self._view = view
        summary = view.header.summary
        self.title.value = title_html(summary)
        self.progress.max = max(1, summary.budget)
        self.progress.value = min(summary.done, self.progress.max)
        self.counts.value = counts_html(view.header)
        self.events.value = events_html(view.events)
        self.failures.value = failures_html(view.failures)
        self.render_table()
        self.controls.update(summary.state, live, selected_state(view.trials, self.selected_trial()))
        self.tabs.render(view, draw=plots)

    def render_table(self) -> None:
        """The table's page for its current sort and page (also after a click on them)."""
        view = self._view
        if view is None:
            return
        summary, now = view.header.summary, time.time()
        running = view.header.summary.count(TrialState.RUNNING)
        ticking = int(now) if running else None  # running trials' durations grow
        asked = self.table.order  # read once: a click may change it on the main thread meanwhile
        sort, descending, page = asked
        labels = rank_labels(view.ranks)
        key = (view.trials_version, summary.state, *asked, ticking, tuple(labels.items()))
        if self._sent.get("table") == key:
            return
        self._sent["table"] = key
        self.table.show(table_page(view.trials, summary.mode, summary.state, self.model.param_names,
                                   summary.metric, now=now, sort=sort, descending=descending, page=page,
                                   objectives=summary.objectives, constraints=summary.constraints,
                                   ranks=labels), asked)

    def set_best_code(self, code: str, label: str = "") -> None:
        """The code "Copy ... as a cell" inserts, and the button's label ("" for the usual one)."""
        with self.copy_best.hold_sync():
            self.copy_best.code = code
            self.copy_best.label = label or COPY_BEST
