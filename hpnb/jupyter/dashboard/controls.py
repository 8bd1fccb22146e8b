"""The dashboard's buttons: stop the search, stop, pause or resume the selected trial, extend, change
parallel, resume the search.

Each button calls a method of the :class:`~hpnb.api.Search` handle;
the runner records the action in the store, and the next refresh shows it.
For a search this kernel does not drive, only Stop works (it writes the stop
flag to the store for the driving process); the others are disabled with a
tooltip saying why. Handlers run on the kernel's main thread (button clicks
arrive on the shell channel).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from hpnb.core.errors import HpnbError
from hpnb.core.trial import ExperimentState, TrialState

if TYPE_CHECKING:
    from hpnb.api import Search
    from hpnb.core.store import TrialRecord

_NOT_HERE = "this search is not driven by this kernel: use %hpsearch resume NAME here first"


def selected_state(trials: Iterable[TrialRecord], selected: int | None) -> str | None:
    """The state of the trial selected in the leaderboard (None when none is)."""
    return next((t.state for t in trials if t.trial_id == selected), None) if selected is not None else None


class Controls:
    """The control bar and its handlers.

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
        self.stop = widgets.Button(description="Stop search", button_style="danger", icon="stop")
        self.stop_trial = widgets.Button(description="Stop trial", icon="times",
                                         tooltip="stop the trial selected in the leaderboard")
        self.pause_trial = widgets.Button(description="Pause trial", icon="pause",
                                          tooltip="pause the selected trial: its slot is freed, and "
                                                  "it resumes later from its latest checkpoint")
        self.resume_trial = widgets.Button(description="Resume trial", icon="play",
                                           tooltip="resume the selected paused trial at the next free slot")
        self.extend_by = widgets.BoundedIntText(value=10, min=1, max=100_000, layout={"width": "80px"})
        self.extend = widgets.Button(description="Extend by", icon="plus")
        self.parallel_to = widgets.BoundedIntText(value=search.spec.parallel or 1, min=1, max=10_000,
                                                  layout={"width": "80px"})
        self.parallel = widgets.Button(description="Set parallel", icon="sliders")
        self.resume = widgets.Button(description="Resume", icon="play", button_style="success")
        self.message = widgets.HTML()
        self.stop.on_click(lambda _: self._act("stop requested", self.search.stop))
        self.stop_trial.on_click(lambda _: self._stop_selected())
        self.pause_trial.on_click(lambda _: self._on_selected("pause requested", self.search.pause_trial))
        self.resume_trial.on_click(lambda _: self._on_selected("resumes at the next free slot",
                                                               self.search.resume_trial))
        self.extend.on_click(lambda _: self._act(f"extended by {self.extend_by.value} trials",
                                                 lambda: self.search.extend(self.extend_by.value)))
        self.parallel.on_click(lambda _: self._act(f"parallel set to {self.parallel_to.value}",
                                                   lambda: self.search.set_parallel(self.parallel_to.value)))
        self.resume.on_click(lambda _: self._do_resume())
        self.box = widgets.HBox([self.stop, self.stop_trial, self.pause_trial, self.resume_trial, self.extend,
                                 self.extend_by, self.parallel, self.parallel_to, self.resume, self.message])

    def _act(self, done: str, action: Callable[[], None]) -> None:
        try:
            action()
        except HpnbError as err:
            self.message.value = f"<span style='color:#d62728'>{err}</span>"
        else:
            self.message.value = done
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
        try:
            self.search = self._resume()
        except Exception as err:  # shown in the dashboard: a click has no cell to raise into
            self.message.value = f"<span style='color:#d62728'>{err}</span>"
            return
        self.message.value = "resumed"
        self._on_action()

    def update(self, state: str, live: bool, selected_state: str | None) -> None:
        """Enable what makes sense for ``state``, whether this kernel drives the search and the
        state of the trial selected in the leaderboard."""
        shown = ExperimentState(state)
        trial = TrialState(selected_state) if live and selected_state is not None else None
        self.stop.disabled = not shown.is_active
        self.stop_trial.disabled = trial is not TrialState.RUNNING
        self.stop_trial.tooltip = ("stop the trial selected in the leaderboard" if live else _NOT_HERE)
        self.pause_trial.disabled = not (trial is not None and trial.is_under_way)
        self.resume_trial.disabled = trial is not TrialState.PAUSED
        if not live:
            self.pause_trial.tooltip = self.resume_trial.tooltip = _NOT_HERE
        for button in (self.extend, self.parallel):
            button.disabled = not live
            button.tooltip = "" if live else _NOT_HERE
        can_resume = self._resume is not None and not live and shown.is_resumable
        self.resume.layout.display = "" if can_resume else "none"
        self.resume.tooltip = "continue this search here with its objective from the notebook"
