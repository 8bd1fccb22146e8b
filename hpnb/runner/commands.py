"""What the driver does on user commands: stop, stop, pause or resume a trial, extend, parallel.

Commands reach every driver the same way, whichever process sent them and whichever runs the
driver: as rows of the store's control channel (:mod:`hpnb.core.store.commands`). The driver
reads the pending ones, carries each out and answers it (done, or refused with the reason).

A part of the driver (:mod:`hpnb.runner.driver`), kept apart so the loop itself stays short;
it runs on the driver thread like the rest of the driver.
"""

from __future__ import annotations

from collections.abc import Callable

from hpnb.core.store import UnknownTrial
from hpnb.core.store.commands import DONE, REFUSED, CommandRecord, command_problem
from hpnb.core.trial import TrialState
from hpnb.core.trial_log import unknown_trial
from hpnb.runner.context import DriverContext
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.pausing import Pauses

#: a command's answer: its state (done or refused) and what the sender shows.
Answer = tuple[str, str]


class DriverCommands:
    """Carries out the commands sent to one search, on the search's context.

    Example:
        >>> commands = DriverCommands(context, pauses)  # doctest: +SKIP
        >>> commands.poll()  # doctest: +SKIP
    """

    def __init__(self, context: DriverContext, pauses: Pauses) -> None:
        self.context = context
        self.pauses = pauses
        self._handlers: dict[str, Callable[[int], Answer]] = {
            "stop": self._stop, "stop_trial": self._stop_trial, "pause_trial": self._pause_trial,
            "resume_trial": self._resume_trial, "extend": self._extend, "parallel": self._parallel,
        }

    def poll(self) -> int:
        """Carry out and answer the commands waiting in the store; returns how many there were."""
        c = self.context
        pending = c.store.pending_commands(c.experiment_id)
        for command in pending:
            state, reply = self.carry_out(command)
            c.store.answer_command(command.id, state, reply)
        return len(pending)

    def carry_out(self, command: CommandRecord) -> Answer:
        """Do what ``command`` asks and record it in the search's events, or say why not."""
        problem = command_problem(command.kind, command.value)
        if problem is not None:
            return REFUSED, problem
        state, reply = self._handlers[command.kind](command.value or 0)
        if state == DONE:
            self.context.writer.event(command.kind, {"value": command.value, "source": command.source})
        return state, reply

    # -- the search ---------------------------------------------------------------------
    def _stop(self, _: int) -> Answer:
        c = self.context
        c.store.clear_stop(c.experiment_id)
        if c.stopping:
            return DONE, f"search {c.name!r} is stopping already"
        c.stop_all("stopped by the user")
        return DONE, f"search {c.name!r} stops: running trials are asked to stop, no new one starts"

    def _extend(self, count: int) -> Answer:
        c = self.context
        c.public.budget += count
        c.exhausted = False if c.strategy.max_trials() is None else c.exhausted
        c.writer.experiment(budget=c.public.budget)
        return DONE, f"search {c.name!r} has a budget of {c.public.budget} trials now (+{count})"

    def _parallel(self, count: int) -> Answer:
        c = self.context
        c.public.parallel, c.auto_parallel = count, False
        self.withdraw_extra()
        self.scale_cluster(count)
        c.writer.experiment(parallel=count)
        return DONE, f"search {c.name!r} runs at most {count} trial{'s' * (count != 1)} at once now"

    # -- one trial ----------------------------------------------------------------------
    def _stop_trial(self, trial_id: int) -> Answer:
        c = self.context
        trial = c.running.get(trial_id)
        if trial is not None:
            c.request_stop(trial, "stopped by the user")
            return DONE, f"trial {trial_id} is asked to stop"
        waiting = self._waiting(trial_id)
        if waiting is None:
            return REFUSED, self._not_under_way(trial_id)
        waiting.stop_reason = "stopped by the user"
        self.pauses.ends.end(waiting, TrialState.STOPPED, waiting.metrics, None, waiting.worker)
        return DONE, f"trial {trial_id} stopped before it ran again"

    def _pause_trial(self, trial_id: int) -> Answer:
        c = self.context
        if trial_id in c.paused:
            return REFUSED, f"trial {trial_id} is paused already"
        trial = c.running.get(trial_id)
        if trial is None:
            return REFUSED, self._not_under_way(trial_id)
        if trial.stop_reason is not None:
            return REFUSED, f"trial {trial_id} is stopping ({trial.stop_reason})"
        self.pauses.request(trial_id)
        if trial_id in c.paused:
            return DONE, f"trial {trial_id} is paused (it had not started)"
        return DONE, f"trial {trial_id} pauses at its next decision point, from its latest checkpoint"

    def _resume_trial(self, trial_id: int) -> Answer:
        c = self.context
        running = c.running.get(trial_id)
        if running is not None and running.pause_requested:
            self.pauses.resume(trial_id)
            return DONE, f"trial {trial_id} goes on: its pause is called off"
        if trial_id not in c.paused:
            state = self._stored_state(trial_id)
            if state is None:
                return REFUSED, self._unknown(trial_id)
            return REFUSED, f"trial {trial_id} is {state}, not PAUSED: there is nothing to resume"
        self.pauses.resume(trial_id)
        return DONE, f"trial {trial_id} resumes in the next free slot"

    def _waiting(self, trial_id: int) -> DrivenTrial | None:
        """The trial if it is paused or queued to run again (not running): taken out of its queue."""
        c = self.context
        trial = c.paused.pop(trial_id, None)
        if trial is not None:
            self.pauses.held.discard(trial_id)
            return trial
        for queued in c.requeue:
            if queued.trial_id == trial_id:
                c.requeue.remove(queued)
                return queued
        return None

    def _not_under_way(self, trial_id: int) -> str:
        state = self._stored_state(trial_id)
        if state is None:
            return self._unknown(trial_id)
        return f"trial {trial_id} already finished ({state})"

    def _stored_state(self, trial_id: int) -> str | None:
        c = self.context
        c.writer.flush()  # the store shows what this driver knows
        try:
            return c.store.trial(c.experiment_id, trial_id).state
        except UnknownTrial:
            return None

    def _unknown(self, trial_id: int) -> str:
        c = self.context
        return str(unknown_trial(c.name, trial_id, c.store.trial_id_range(c.experiment_id)))

    # -- parts of parallel -------------------------------------------------------------
    def withdraw_extra(self) -> None:
        """After ``parallel`` went down: take back queued attempts beyond the new limit."""
        c = self.context
        queued = [r for r in c.running.values() if not r.attempt_started]
        for trial in sorted(queued, key=lambda r: -r.trial_id):
            if len(c.running) <= c.in_flight_limit():
                return
            c.withdraw(trial, requeue=True)

    def scale_cluster(self, parallel: int) -> None:
        """Grow or shrink a cluster hpnb started for this search to ``parallel`` slots."""
        c = self.context
        if c.scale is None:
            return
        threads = c.spec.resources.threads_per_worker
        try:
            c.scale(-(-parallel // threads))
        except Exception as exc:  # a cluster that cannot scale still runs the search
            c.writer.event("scale_failed", {"parallel": parallel, "error": str(exc)})
