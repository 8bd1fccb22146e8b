"""What the driver does on user commands and stop requests: stop, pause, resume, extend, scale.

A part of the driver (:mod:`hpnb.runner.driver`), kept apart so the loop itself stays
short; it runs on the driver thread like the rest of the driver.
"""

from __future__ import annotations

from dataclasses import dataclass

from hpnb.runner.context import DriverContext
from hpnb.runner.pausing import Pauses


@dataclass(frozen=True)
class Command:
    """A user action for the driver: stop, stop_trial, pause_trial, resume_trial, extend, parallel."""

    kind: str
    value: int | None = None


class DriverCommands:
    """What the driver does on commands and stop requests, on the search's context.

    Example:
        >>> commands = DriverCommands(context, pauses)  # doctest: +SKIP
        >>> commands.handle(Command("extend", 5))  # doctest: +SKIP
    """

    def __init__(self, context: DriverContext, pauses: Pauses) -> None:
        self.context = context
        self.pauses = pauses

    def handle(self, command: Command) -> None:
        """Carry out a user's command (stop, stop_trial, extend, parallel) and record it."""
        c = self.context
        if command.kind == "stop":
            c.stop_all("stopped by the user")
        elif command.kind == "stop_trial" and command.value in c.running:
            c.request_stop(c.running[command.value], "stopped by the user")
        elif command.kind == "pause_trial" and command.value is not None:
            self.pauses.request(command.value)
        elif command.kind == "resume_trial" and command.value is not None:
            self.pauses.resume(command.value)
        elif command.kind == "extend" and command.value:
            c.public.budget += command.value
            c.exhausted = False if c.strategy.max_trials() is None else c.exhausted
            c.writer.experiment(budget=c.public.budget)
        elif command.kind == "parallel" and command.value:
            c.public.parallel, c.auto_parallel = command.value, False
            self.withdraw_extra()
            self.scale_cluster(command.value)
            c.writer.experiment(parallel=command.value)
        else:
            return
        c.writer.event(command.kind, {"value": command.value})

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

    def poll_store_stop(self) -> None:
        """Stop when another process set the stop flag in the store (the sidebar, the CLI)."""
        c = self.context
        record = c.store.find_experiment(c.name)
        if record is not None and record.stop_requested and not c.stopping:
            c.store.clear_stop(c.experiment_id)
            c.stop_all("stop requested from outside the kernel")
            c.writer.event("stop", {"source": "store"})
