"""What the driver does on user commands and stop requests: stop, withdraw, extend, scale.

A mixin of :class:`hpnb.runner.driver.Driver`, kept apart so the loop itself
stays short; it runs on the driver thread like the rest of the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hpnb.runner.trial_runtime import TrialRuntime


@dataclass(frozen=True)
class Command:
    """A user action for the driver: stop, stop_trial, extend, parallel."""

    kind: str
    value: int | None = None


class DriverControls:
    """Commands and stops; relies on the attributes and helpers of ``Driver``."""

    running: dict[int, TrialRuntime]
    requeue: list[TrialRuntime]
    stopping: str | None
    auto_parallel: bool
    exhausted: bool
    scale: Callable[[int], None] | None
    public: Any
    writer: Any
    executor: Any
    strategy: Any
    spec: Any
    store: Any
    name: str
    experiment_id: int

    def _request_stop(self, runtime: TrialRuntime, reason: str) -> None:
        raise NotImplementedError

    def _in_flight_limit(self) -> int:
        raise NotImplementedError

    def _on_command(self, command: Command) -> None:
        if command.kind == "stop":
            self._stop_all("stopped by the user")
        elif command.kind == "stop_trial" and command.value in self.running:
            self._request_stop(self.running[command.value], "stopped by the user")
        elif command.kind == "extend" and command.value:
            self.public.budget += command.value
            self.exhausted = False if self.strategy.max_trials() is None else self.exhausted
            self.writer.experiment(budget=self.public.budget)
        elif command.kind == "parallel" and command.value:
            self.public.parallel, self.auto_parallel = command.value, False
            self._withdraw_extra()
            self._scale_cluster(command.value)
            self.writer.experiment(parallel=command.value)
        else:
            return
        self.writer.event(command.kind, {"value": command.value})

    def _stop_all(self, reason: str, final: str = "STOPPED") -> None:
        self.stopping = final
        self.public.message = reason
        for runtime in list(self.running.values()):
            if runtime.attempt_started:
                self._request_stop(runtime, reason)
            else:
                self._withdraw(runtime)

    def _withdraw(self, runtime: TrialRuntime, requeue: bool = False) -> None:
        """Take back a queued attempt that never started: it stays PENDING, to run later
        (or on resume). Its next attempt gets a new number, so a late start is ignored."""
        self.executor.cancel(runtime.trial_id, runtime.attempt)
        del self.running[runtime.trial_id]
        runtime.new_attempt(skip_through_step=runtime.last_stored_step)
        if requeue:
            self.requeue.insert(0, runtime)

    def _withdraw_extra(self) -> None:
        """After ``parallel`` went down: take back queued attempts beyond the new limit."""
        queued = [r for r in self.running.values() if not r.attempt_started]
        for runtime in sorted(queued, key=lambda r: -r.trial_id):
            if len(self.running) <= self._in_flight_limit():
                return
            self._withdraw(runtime, requeue=True)

    def _scale_cluster(self, parallel: int) -> None:
        """Grow or shrink a cluster hpnb started for this search to ``parallel`` slots."""
        if self.scale is None:
            return
        threads = self.spec.resources.threads_per_worker
        try:
            self.scale(-(-parallel // threads))
        except Exception as exc:  # a cluster that cannot scale still runs the search
            self.writer.event("scale_failed", {"parallel": parallel, "error": str(exc)})

    def _poll_store_stop(self) -> None:
        record = self.store.find_experiment(self.name)
        if record is not None and record.stop_requested and not self.stopping:
            self.store.clear_stop(self.experiment_id)
            self._stop_all("stop requested from outside the kernel")
            self.writer.event("stop", {"source": "store"})
