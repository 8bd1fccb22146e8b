"""The dashboard's buttons: stop the search, stop, pause or resume the selected trial, extend, change
parallel, resume the search.

Each button sends a command through the store's control channel (:mod:`hpnb.core.control`), so it
acts on the search wherever its driver runs: in this kernel, in another one, in a detached process.
The command is sent from a thread of its own and the driver's answer (what it did, or why it
refused) shows in the status line when it comes: the kernel never waits for it. A search that has
ended and that this kernel started or can resume is continued here by Extend (as ``%hpsearch
resume`` would). Handlers run on the kernel's main thread (button clicks arrive on the shell
channel, also while a cell waits: see :mod:`hpnb.jupyter.widget_pump`).
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from hpnb.core.control import describe_answer
from hpnb.core.trial import ExperimentState, TrialState

if TYPE_CHECKING:
    from hpnb.api import Search
    from hpnb.core.store import TrialRecord

_ENDED = "the search has ended: Extend by runs more trials"
_NOT_HERE = "the search has ended, and this kernel cannot run its objective: `hpnb resume NAME --detach`"
_GROUP_LAYOUT = {"flex": "0 0 auto", "align_items": "center", "margin": "0 16px 0 0"}
#: what the status line says for each command once sent.
_SENT = {"stop": "stop sent", "stop_trial": "stop sent", "pause_trial": "pause sent",
         "resume_trial": "resume sent", "extend": "extend sent", "parallel": "parallel sent"}


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
        self.stop.on_click(lambda _: self.send("stop"))
        self.stop_trial.on_click(lambda _: self._on_selected("stop_trial"))
        self.pause_trial.on_click(lambda _: self._on_selected("pause_trial"))
        self.resume_trial.on_click(lambda _: self._on_selected("resume_trial"))
        self.extend.on_click(lambda _: self._extend())
        self.parallel.on_click(lambda _: self._set_parallel())
        self.resume.on_click(lambda _: self._do_resume())

    def send(self, kind: str, value: int | None = None) -> threading.Thread:
        """Send a command to the search's driver, wherever it runs; its answer shows when it comes.

        Returns:
            The thread that waits for the answer (the kernel goes on meanwhile).
        """
        self._show(_SENT[kind] + (f" (trial {value})" if kind.endswith("_trial") else ""))
        thread = threading.Thread(target=self._send, args=(kind, value), daemon=True,
                                  name=f"hpnb-command-{kind}")
        thread.start()
        return thread

    def _send(self, kind: str, value: int | None) -> None:
        try:
            answer = self.search.command(kind, value, source="cell")
        except Exception as err:  # shown in the dashboard: a click has no cell to raise into
            self._show(str(err), error=True)
        else:
            self._show(describe_answer(answer))
            if kind == "parallel":
                self._shown_parallel = value
        self._on_action()

    def _show(self, text: str, error: bool = False) -> None:
        escaped = html.escape(text)
        self.message.value = f"<span style='color:#d62728'>{escaped}</span>" if error else escaped

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
        if self.search.budget_spent:
            self.search.wait()  # nothing left to run: it ends at once, and extend then restarts it
        return self.search

    def _extend(self) -> None:
        count = self.extend_by.value
        if self.search.is_running:
            self.send("extend", count)
            return
        self._act(f"extended by {count} trials", lambda: self._continued().extend(count))

    def _set_parallel(self) -> None:
        count = self.parallel_to.value
        if self.search.is_running:
            self.send("parallel", count)
            return
        self._act(f"parallel set to {count} for the next run", lambda: self.search.set_parallel(count))
        self._shown_parallel = count

    def _act(self, done: str, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as err:  # shown in the dashboard: a click has no cell to raise into
            self._show(str(err), error=True)
        else:
            self._show(done)
        self._on_action()

    def _on_selected(self, kind: str) -> None:
        trial_id = self._selected_trial()
        if trial_id is None:
            self._show("select a trial in the leaderboard first")
            return
        self.send(kind, trial_id)

    def _do_resume(self) -> None:
        if self._resume is None:
            return
        self._act("resumed", self._resumed)

    def _resumed(self) -> None:
        assert self._resume is not None
        self.search = self._resume()

    def update(self, state: str, live: bool, selected_state: str | None) -> None:
        """Enable what makes sense for ``state`` (a RUNNING search takes commands wherever its
        driver runs), whether this kernel drives it, and the selected trial's state."""
        shown = ExperimentState(state)
        running = live or shown is ExperimentState.RUNNING
        trial = TrialState(selected_state) if running and selected_state is not None else None
        self.stop.disabled = not running
        stoppable = trial is not None and (trial.is_under_way or trial is TrialState.PAUSED)
        self.stop_trial.disabled = not stoppable
        self.pause_trial.disabled = not (trial is not None and trial.is_under_way)
        self.resume_trial.disabled = trial is not TrialState.PAUSED
        if running:
            self.stop_trial.tooltip = "stop the trial selected in the leaderboard"
            self.pause_trial.tooltip = ("pause the selected trial: its slot is freed, and it resumes later "
                                        "from its latest checkpoint")
            self.resume_trial.tooltip = "resume the selected paused trial at the next free slot"
        else:
            self.stop_trial.tooltip = self.pause_trial.tooltip = self.resume_trial.tooltip = _ENDED
        here = self.search.objective is not None or self._resume is not None
        can_continue = running or (not shown.is_active and here)
        for button in (self.extend, self.parallel):
            button.disabled = not can_continue
        not_here = _NOT_HERE.replace("NAME", self.search.name)
        self.extend.tooltip = ("add trials to the budget (a finished search runs again)" if can_continue
                               else not_here)
        self.parallel.tooltip = "trials run at once" if can_continue else not_here
        can_resume = self._resume is not None and not running and shown.is_resumable
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
