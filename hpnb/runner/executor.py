"""The executor interface: where trials run. The driver is its only caller.

An executor runs trial attempts and turns everything that happens to them
into events handed to a sink (from any thread): :class:`ResultBatch` while a
trial runs, :class:`AttemptDone` when an attempt ends, :class:`AttemptOutput` for what it printed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.trial_output import TrialOutput
from hpnb.runner.worker.objective import TrialTask


@dataclass(frozen=True)
class AttemptStarted:
    """An attempt began to run on ``worker`` at ``time`` (epoch seconds)."""

    trial_id: int
    attempt: int
    worker: str
    time: float


@dataclass(frozen=True)
class ResultBatch:
    """Results one attempt reported: rows of ``[seq, step, time, metrics, checkpoint reference]``, with a
    sixth item ``True`` on a row whose trial waits for a verdict (see :meth:`Executor.verdict`).

    Attributes:
        unanswered: decision steps at which the trial waited in vain and went on by itself.
    """

    trial_id: int
    attempt: int
    rows: list[list[Any]]
    unanswered: tuple[int, ...] = ()
    #: ``[name, data]`` events the trial noted for the search (a checkpoint found missing).
    events: tuple[list[Any], ...] = ()
    #: the report (its seq) the trial waits to know recorded (see :meth:`Executor.recorded`).
    recorded: int | None = None


@dataclass(frozen=True)
class AttemptDone:
    """An attempt ended.

    Attributes:
        outcome: what :func:`run_trial` returned, or None when the attempt was lost (its
            worker died, or the task was cancelled, before it returned).
        reason: why it was lost.
    """

    trial_id: int
    attempt: int
    outcome: dict[str, Any] | None
    worker: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class AttemptOutput:
    """What an attempt printed (the tails of its stdout and stderr), where it ran, its peak memory.

    Sent when the attempt returned (with its outcome, or just after it), or when a trial that did
    not return was given up on (what it printed until then, where that could be read).
    """

    trial_id: int
    attempt: int
    output: TrialOutput


#: how a lost attempt's reason begins when rank 0 of a gang found its port taken (run again,
#: never counted as the trial's failure).
PORT_TAKEN = "the rendezvous port was taken"


@dataclass(frozen=True)
class RanksChanged:
    """The ranks of a trial that spans several workers, each with its worker and state
    (``starting``, ``running``, ``completed``, ``failed``, ``stopped``, ``lost``), after one changed."""

    trial_id: int
    attempt: int
    ranks: tuple[tuple[str, str], ...]  # (worker, state) by rank

    def to_event(self) -> dict[str, Any]:
        """The store event's data (kind ``ranks``)."""
        return {"trial": self.trial_id, "attempt": self.attempt,
                "ranks": [{"rank": rank, "worker": worker, "state": state}
                          for rank, (worker, state) in enumerate(self.ranks)]}


Event = AttemptStarted | ResultBatch | AttemptDone | AttemptOutput | RanksChanged
Sink = Callable[[Event], None]


class Executor(ABC):
    """Runs trial attempts somewhere and reports what happens to a sink."""

    def __init__(self) -> None:
        self.sink: Sink = lambda event: None
        #: the per-trial resource that holds :meth:`capacity` below the worker threads, or None
        self.limited_by: str | None = None
        #: why no worker can run a trial (its per-trial resources), once workers are there; else None
        self.unfit: str | None = None
        #: trials the workers could take at the last :meth:`capacity` (0: none can now); None: unknown
        self.slots: int | None = None
        #: what a trial waits for when no slot is free, in words ("2 workers with gpu=1"); None: a worker
        self.waiting_for: str | None = None

    @abstractmethod
    def capacity(self) -> int:
        """How many trials can run at once (worker threads)."""

    @abstractmethod
    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        """Start one attempt."""

    def submit_many(self, objective: Callable[..., Any], tasks: Sequence[TrialTask]) -> None:
        """Start several attempts (an executor may send them at once)."""
        for task in tasks:
            self.submit(objective, task)

    @abstractmethod
    def stop(self, trial_id: int, attempt: int) -> None:
        """Ask an attempt to stop (it learns it at its next report)."""

    @abstractmethod
    def verdict(self, trial_id: int, attempt: int, step: int, verdict: str) -> None:
        """Answer an attempt waiting at decision step ``step``: ``continue``, ``stop``, ``pause``
        or ``exploit`` (any but ``continue`` ends the attempt there)."""

    def recorded(self, trial_id: int, attempt: int, seq: int) -> None:
        """Tell an attempt that the driver has recorded its reports up to ``seq`` (a checkpoint)."""

    def cancel(self, trial_id: int, attempt: int) -> None:
        """Take back an attempt that has not started (or no longer matters)."""

    def abandon(self, trial_id: int, attempt: int) -> str | None:
        """Give up on a started attempt that does not answer a stop request.

        Its thread cannot be interrupted: the executor frees the slot it holds where
        it can (restarting the worker) or writes the slot off. Returns what it did, in
        words, for the search's message (None when there was nothing to do).
        """
        self.cancel(trial_id, attempt)
        return None

    def stuck_workers(self) -> list[str]:
        """Workers holding threads of abandoned attempts that have not returned."""
        return []

    def close(self) -> None:
        """Release what the executor holds (never a cluster it did not create)."""
