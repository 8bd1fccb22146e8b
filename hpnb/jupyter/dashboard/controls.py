"""The dashboard's buttons: stop the search, stop, pause or resume the selected trial, extend, change
parallel, resume the search.

Each button calls a method of the :class:`~hpnb.api.Search` handle;
the runner records the action in the store, and the next refresh shows it.
A search this kernel started or can resume is continued here by Extend and Set
parallel after it ended (as ``%hpsearch resume`` would); for one another process
drives, only Stop works (it writes the stop flag to the store for that process),
and the others are disabled with a tooltip saying why. Handlers run on the kernel's
main thread (button clicks arrive on the shell channel, also while a cell waits: see
:mod:`hpnb.jupyter.widget_pump`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from hpnb.core.trial import ExperimentState, TrialState
from hpnb.jupyter.resume import budget_spent

if TYPE_CHECKING:
    from hpnb.api import Search
    from hpnb.core.store import TrialRecord

_NOT_HERE = "this search is driven by another process: act on it there"
_ENDED = "the search has ended: Extend by runs more trials"
_GROUP_LAYOUT = {"flex": "0 0 auto", "align_items": "center", "margin": "0 16px 0 0"}


def selected_state(trials: Iterable[TrialRecord], selected: int | None) -> str | None:
    """The state of the trial selected in the leaderboard (None when none is)."""
    return next((t.state for t in trials if t.trial_id == selected), None) if selected is not None else None


def _button(description: str, icon: str, tooltip: str = "", style: str = "") -> widgets.Button:
    """A button as wide as its label (ipywidgets' default width cuts longer labels)."""
    return widgets.Button(description=description, icon=icon, tooltip=tooltip, button_style=style,
                          layout={"width": "auto", "flex": "0 0 auto"})


def _group(title: str, *children: widgets.Widget) -> widgets.HBox:
    """Buttons that wrap together, never word by word."""
    label = widgets.HTML(f"<span class='hpnb-group-title'>{title}</span>", layout={"flex": "0 0 auto"})
    box = widgets.HBox([label, *children], layout=_GROUP_LAYOUT)
    box.add_class("hpnb-control-group")
    return box


class Controls:
    """The control bar and its handlers: the search, the selected trial and the budget, each a group,
    and a status line below them (the last action's outcome).

    Args:
        search: the handle the buttons act on.
        selected_trial: returns the trial selected in the leaderboard (or None).
        on_action: called after each action (to refresh the dashboard at once).
        resume: resumes the search with the objective from the namespace, or None if unknown.
    """

    def __init__(self, search: Search, selected_trial: Callable[[], int | None],
                 on_action: Callable[[], None], resume: Callable[[], Any] | None = None) -> None:
        self.search = search
        self._selected_trial = selected_trial
        self._on_action = on_action
        self._resume = resume
        self._shown_parallel: int | None = None
        self.stop = _button("Stop search", "stop", style="danger")
        self.resume = _button("Resume", "play", style="success",
                              tooltip="continue this search here with its objective from the notebook")
        self.stop_trial = _button("Stop", "times", "stop the trial selected in the leaderboard")
        self.pause_trial = _button("Pause", "pause", "pause the selected trial: its slot is freed, and it "
                                                     "resumes later from its latest checkpoint")
        self.resume_trial = _button("Resume", "play",
                                    "resume the selected paused trial at the next free slot")
        self.extend_by = widgets.BoundedIntText(value=10, min=1, max=100_000, layout={"width": "72px"})
        self.extend = _button("Extend by", "plus", "add trials to the budget (a finished search runs again)")
        self.parallel_to = widgets.BoundedIntText(value=self._parallel_now() or 1, min=1, max=10_000,
                                                  layout={"width": "64px"})
        self.parallel = _button("Set parallel", "sliders", "trials run at once")
        self.message = widgets.HTML(layout={"min_height": "1.5em"})
        self.message.add_class("hpnb-status")
        self._wire()
        self.box = widgets.VBox([
            widgets.HBox([
                _group("search", self.stop, self.resume),
                _group("selected trial", self.stop_trial, self.pause_trial, self.resume_trial),
                _group("budget", self.extend, self.extend_by, self.parallel, self.parallel_to),
            ], layout={"flex_flow": "row wrap", "align_items": "center"}),
            self.message,
        ])
        self.box.add_class("hpnb-controls")

    def _wire(self) -> None:
        self.stop.on_click(lambda _: self._act("stop requested", self.search.stop))
        self.stop_trial.on_click(lambda _: self._stop_selected())
        self.pause_trial.on_click(lambda _: self._on_selected("pause requested", self.search.pause_trial))
        self.resume_trial.on_click(lambda _: self._on_selected("resumes at the next free slot",
                                                               self.search.resume_trial))
        self.extend.on_click(lambda _: self._act(f"extended by {self.extend_by.value} trials", self._extend))
        self.parallel.on_click(lambda _: self._act(f"parallel set to {self.parallel_to.value}",
                                                   self._set_parallel))
        self.resume.on_click(lambda _: self._do_resume())

    def _parallel_now(self) -> int | None:
        try:
            return self.search.parallel
        except Exception:  # a store that cannot be read now: the next refresh shows it
            return None

    def _continued(self) -> Search:
        """The handle to act on: this one while it runs or when this kernel started it, else the
        search resumed here (as ``%hpsearch resume`` would)."""
        search = self.search
        if search.is_live or search.objective is not None or self._resume is None:
            return search
        self.search = self._resume()
        if budget_spent(self.search):
            self.search.wait()  # nothing left to run: it ends at once, and extend then restarts it
        return self.search

    def _extend(self) -> None:
        self._continued().extend(self.extend_by.value)

    def _set_parallel(self) -> None:
        self.search.set_parallel(self.parallel_to.value)
        self._shown_parallel = self.parallel_to.value

    def _act(self, done: str, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as err:  # shown in the dashboard: a click has no cell to raise into
            self.message.value = f"<span style='color:#d62728'>{html.escape(str(err))}</span>"
        else:
            self.message.value = html.escape(done)
        self._on_action()

    def _stop_selected(self) -> None:
        self._on_selected("stop requested", self.search.stop_trial)

    def _on_selected(self, done: str, action: Callable[[int], None]) -> None:
        trial_id = self._selected_trial()
        if trial_id is None:
            self.message.value = "select a trial in the leaderboard first"
            return
        self._act(f"trial {trial_id}: {done}", lambda: action(trial_id))

    def _do_resume(self) -> None:
        if self._resume is None:
            return
        self._act("resumed", self._resumed)

    def _resumed(self) -> None:
        assert self._resume is not None
        self.search = self._resume()

    def update(self, state: str, live: bool, selected_state: str | None) -> None:
        """Enable what makes sense for ``state``, whether this kernel drives the search and the
        state of the trial selected in the leaderboard."""
        shown = ExperimentState(state)
        trial = TrialState(selected_state) if live and selected_state is not None else None
        active = shown.is_active
        elsewhere = active and not live  # another process drives it
        self.stop.disabled = not active
        why = _NOT_HERE if elsewhere else _ENDED
        self.stop_trial.disabled = trial is not TrialState.RUNNING
        self.pause_trial.disabled = not (trial is not None and trial.is_under_way)
        self.resume_trial.disabled = trial is not TrialState.PAUSED
        self.stop_trial.tooltip = "stop the trial selected in the leaderboard" if live else why
        if not live:
            self.pause_trial.tooltip = self.resume_trial.tooltip = why
        here = self.search.objective is not None or self._resume is not None
        can_continue = live or (not active and here)
        for button in (self.extend, self.parallel):
            button.disabled = not can_continue
        self.extend.tooltip = ("add trials to the budget (a finished search runs again)" if can_continue
                               else _NOT_HERE)
        self.parallel.tooltip = "trials run at once" if can_continue else _NOT_HERE
        can_resume = self._resume is not None and not live and shown.is_resumable
        self.resume.layout.display = "" if can_resume else "none"
        self._show_parallel()

    def _show_parallel(self) -> None:
        """The parallelism in force, unless the user changed the field since it was last shown."""
        now = self._parallel_now()
        if now is None or now == self._shown_parallel:
            return
        if self._shown_parallel is None or self.parallel_to.value == self._shown_parallel:
            self.parallel_to.value = now
        self._shown_parallel = now
