"""The executor interface: where trials run. The driver is its only caller.

An executor runs trial attempts and turns everything that happens to them
into events handed to a sink (from any thread): :class:`ResultBatch` while a
trial runs, :class:`AttemptDone` when an attempt ends.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from hpnb.runner.objective import TrialTask, run_trial
from hpnb.runner.trial_context import TrialChannel


@dataclass(frozen=True)
class AttemptStarted:
    """An attempt began to run on ``worker`` at ``time`` (epoch seconds)."""

    trial_id: int
    attempt: int
    worker: str
    time: float


@dataclass(frozen=True)
class ResultBatch:
    """Results one attempt reported: rows of ``[seq, step, time, metrics, checkpoint]``."""

    trial_id: int
    attempt: int
    rows: list[list[Any]]


@dataclass(frozen=True)
class AttemptDone:
    """An attempt ended.

    Attributes:
        outcome: what :func:`run_trial` returned, or None when the attempt was lost.
        lost: the worker running it died (or the task was cancelled) before it returned.
        reason: why it was lost.
    """

    trial_id: int
    attempt: int
    outcome: dict[str, Any] | None
    worker: str | None = None
    lost: bool = False
    reason: str | None = None


Event = AttemptStarted | ResultBatch | AttemptDone
Sink = Callable[[Event], None]


class Executor(ABC):
    """Runs trial attempts somewhere and reports what happens to a sink."""

    def __init__(self) -> None:
        self.sink: Sink = lambda event: None

    @abstractmethod
    def capacity(self) -> int:
        """How many trials can run at once (worker threads)."""

    @abstractmethod
    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        """Start one attempt."""

    @abstractmethod
    def stop(self, trial_id: int, attempt: int) -> None:
        """Ask an attempt to stop (it learns it at its next report)."""

    def cancel(self, trial_id: int, attempt: int) -> None:
        """Give up on an attempt that does not answer a stop request."""

    def close(self) -> None:
        """Release what the executor holds (never a cluster it did not create)."""


class ThreadExecutor(Executor):
    """Runs trials in threads of this process: for tests and debugging.

    Example:
        >>> executor = ThreadExecutor(2)
        >>> executor.capacity()
        2
    """

    def __init__(self, workers: int = 2) -> None:
        super().__init__()
        import threading

        self._workers = workers
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="hpnb-trial")
        self._stops: dict[tuple[int, int], threading.Event] = {}
        self._new_event = threading.Event

    def capacity(self) -> int:
        return self._workers

    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        key = (task.trial_id, task.attempt)
        stop = self._stops.setdefault(key, self._new_event())

        def send(batch: dict[str, Any]) -> None:
            self.sink(ResultBatch(batch["trial"], batch["attempt"], batch["rows"]))

        def run() -> None:
            self.sink(AttemptStarted(task.trial_id, task.attempt, "thread", time.time()))
            outcome = run_trial(objective, task, TrialChannel(send, stop.is_set))
            self._stops.pop(key, None)
            self.sink(AttemptDone(task.trial_id, task.attempt, outcome, worker="thread"))

        self._pool.submit(run)

    def stop(self, trial_id: int, attempt: int) -> None:
        event = self._stops.get((trial_id, attempt))
        if event is not None:
            event.set()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
