"""What the driver does on user commands and stop requests: stop, withdraw, extend, scale.

A part of :class:`hpnb.runner.driver.Driver` (it holds one), kept apart so the
loop itself stays short; it runs on the driver thread like the rest of the driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpnb.runner.driven_trial import DrivenTrial
    from hpnb.runner.driver import Driver


@dataclass(frozen=True)
class Command:
    """A user action for the driver: stop, stop_trial, pause_trial, resume_trial, extend, parallel."""

    kind: str
    value: int | None = None


class DriverCommands:
    """What the driver does on commands and stop requests; it acts on the driver it belongs to.

    Example:
        >>> commands = DriverCommands(driver)  # doctest: +SKIP
        >>> commands.handle(Command("extend", 5))  # doctest: +SKIP
    """

    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def handle(self, command: Command) -> None:
        """Carry out a user's command (stop, stop_trial, extend, parallel) and record it."""
        d = self.driver
        if command.kind == "stop":
            self.stop_all("stopped by the user")
        elif command.kind == "stop_trial" and command.value in d.running:
            d.request_stop(d.running[command.value], "stopped by the user")
        elif command.kind == "pause_trial" and command.value is not None:
            d.pauses.request(command.value)
        elif command.kind == "resume_trial" and command.value is not None:
            d.pauses.resume(command.value)
        elif command.kind == "extend" and command.value:
            d.public.budget += command.value
            d.exhausted = False if d.strategy.max_trials() is None else d.exhausted
            d.writer.experiment(budget=d.public.budget)
        elif command.kind == "parallel" and command.value:
            d.public.parallel, d.auto_parallel = command.value, False
            self.withdraw_extra()
            self.scale_cluster(command.value)
            d.writer.experiment(parallel=command.value)
        else:
            return
        d.writer.event(command.kind, {"value": command.value})

    def stop_all(self, reason: str, final: str = "STOPPED") -> None:
        """Stop the search: running trials are asked to stop, queued ones withdrawn."""
        d = self.driver
        d.stopping = final
        d.public.message = reason
        for trial in list(d.running.values()):
            if trial.attempt_started:
                d.request_stop(trial, reason)
            else:
                self.withdraw(trial)

    def withdraw(self, trial: DrivenTrial, requeue: bool = False) -> None:
        """Take back a queued attempt that never started: it stays PENDING, to run later
        (or on resume). Its next attempt gets a new number, so a late start is ignored."""
        d = self.driver
        d.executor.cancel(trial.trial_id, trial.attempt)
        del d.running[trial.trial_id]
        trial.new_attempt(skip_through_step=trial.last_stored_step)
        if requeue:
            d.requeue.insert(0, trial)

    def withdraw_extra(self) -> None:
        """After ``parallel`` went down: take back queued attempts beyond the new limit."""
        d = self.driver
        queued = [r for r in d.running.values() if not r.attempt_started]
        for trial in sorted(queued, key=lambda r: -r.trial_id):
            if len(d.running) <= d.in_flight_limit():
                return
            self.withdraw(trial, requeue=True)

    def scale_cluster(self, parallel: int) -> None:
        """Grow or shrink a cluster hpnb started for this search to ``parallel`` slots."""
        d = self.driver
        if d.scale is None:
            return
        threads = d.spec.resources.threads_per_worker
        try:
            d.scale(-(-parallel // threads))
        except Exception as exc:  # a cluster that cannot scale still runs the search
            d.writer.event("scale_failed", {"parallel": parallel, "error": str(exc)})

    def poll_store_stop(self) -> None:
        """Stop when another process set the stop flag in the store (the sidebar, the CLI)."""
        d = self.driver
        record = d.store.find_experiment(d.name)
        if record is not None and record.stop_requested and not d.stopping:
            d.store.clear_stop(d.experiment_id)
            self.stop_all("stop requested from outside the kernel")
            d.writer.event("stop", {"source": "store"})
