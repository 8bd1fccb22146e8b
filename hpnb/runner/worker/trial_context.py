"""The state of the trial running in this thread, and how it talks to its driver: what
:mod:`~hpnb.runner.worker.reporting`, checkpoints and the trial's own context read.

Example:
    >>> current() is None  # outside a search
    True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.runner.checkpoint_store import CheckpointLocation

#: a batch is sent once it holds this many results ...
BATCH_SIZE = 200
#: ... or once this many seconds have passed since the last send.
BATCH_INTERVAL = 0.05
#: how often (seconds) a reporting trial asks whether it must stop.
STOP_CHECK_INTERVAL = 0.2
#: the verdict that lets a trial go on; any other ends its attempt (stop, pause, exploit).
CONTINUE = "continue"


@dataclass
class TrialChannel:
    """How a running trial talks to its driver.

    Attributes:
        send: sends one batch (a dict, msgpack-serialisable) to the driver.
        should_stop: True once the driver asked this trial to stop.
        await_verdict: waits at most ``timeout`` seconds for the driver's verdict on ``step``;
            None when none came.
        await_recorded: waits at most ``timeout`` seconds until the driver has recorded the
            report numbered ``seq`` (one with a checkpoint); False when it did not say so in time.
    """

    send: Callable[[dict[str, Any]], None]
    should_stop: Callable[[], bool]
    await_verdict: Callable[[int, float], str | None] = lambda step, timeout: CONTINUE
    await_recorded: Callable[[int, float], bool] = lambda seq, timeout: True


@dataclass
class TrialContext:
    """State of the trial running in this thread."""

    experiment: str
    trial_id: int
    attempt: int
    channel: TrialChannel
    #: the checkpoints this attempt may resume from, newest first: (reference, step).
    resume_from: tuple[tuple[str, int | None], ...] = ()
    #: the search's place in the checkpoint store.
    location: CheckpointLocation | None = None
    params: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    buffer: list[list[Any]] = field(default_factory=list)
    last_send: float = field(default_factory=time.monotonic)
    last_stop_check: float = field(default_factory=time.monotonic)
    stop_requested: bool = False
    last_metrics: dict[str, Any] = field(default_factory=dict)
    decision_points: DecisionPoints = field(default_factory=DecisionPoints)
    #: the latest step reported in this attempt (the checkpoint's step when it resumed from one).
    last_step: int | None = None
    verdict_timeout: float = 10.0
    stop_reason: str = "by the driver"
    #: decision steps at which no verdict came in time, not yet told to the driver.
    unanswered: list[int] = field(default_factory=list)
    #: the checkpoint resumed from and its manifest once looked up (empty: none exists).
    resolved: tuple[str, dict[str, Any]] | tuple[()] | None = None
    #: ``[name, data]`` events for the driver to record (a checkpoint found missing).
    events: list[list[Any]] = field(default_factory=list)
    #: a folder checkpoint made by ``checkpoint_dir``, not yet sent: (step, reference or error).
    pending_checkpoint: tuple[int | None, Any] | None = None
    #: the trial's own folder once asked for (``hpnb.current_trial().dir``).
    trial_dir: Path | None = None
    #: whether :func:`report` raised :class:`TrialStopped` in this attempt (a framework callback
    #: catches it to end its training loop: the attempt still ends as stopped).
    stop_raised: bool = False
    #: whether a report with a checkpoint waits for the driver's word that it recorded it; off for
    #: the rest of the attempt once a word did not come in time (a driver gone, killed: its
    #: orphaned attempt must not hold its worker for a timeout at every step)
    confirm_checkpoints: bool = True
    #: this rank of a trial that spans several workers, and how many ranks it has
    rank: int = 0
    world_size: int = 1

    def add(self, step: int | None, metrics: dict[str, Any], checkpoint: Any) -> None:
        self.seq += 1
        row: list[Any] = [self.seq, step, time.time(), metrics, checkpoint]
        if step is not None:
            if self.decision_points.crossed(self.last_step, step):
                row.append(True)  # this trial waits for a verdict on this row
            self.last_step = step
        self.buffer.append(row)
        self.last_metrics = metrics
        if len(row) > 5:
            self.flush()
            self.await_verdict(step)  # type: ignore[arg-type]
            return
        now = time.monotonic()
        if checkpoint is not None and self.confirm_checkpoints:  # returns once the driver holds it
            self.flush(recorded=self.seq)
            if not self.channel.await_recorded(self.seq, self.verdict_timeout):
                self.confirm_checkpoints = False
                self.events.append(["checkpoint_unconfirmed", {"trial": self.trial_id, "step": step}])
        elif len(self.buffer) >= BATCH_SIZE or now - self.last_send >= BATCH_INTERVAL:
            self.flush()
        if now - self.last_stop_check >= STOP_CHECK_INTERVAL:
            self.last_stop_check = now
            self.stop_requested = self.stop_requested or self.channel.should_stop()

    def await_verdict(self, step: int) -> None:
        verdict = self.channel.await_verdict(step, self.verdict_timeout)
        if verdict is None:
            self.unanswered.append(step)
        elif verdict != CONTINUE:
            self.stop_requested = True
            self.stop_reason = f"{verdict} at step {step}"

    def flush(self, recorded: int | None = None) -> None:
        """Send what is buffered; ``recorded``: the report whose recording the trial waits for."""
        # a batch may carry no rows: a wait in vain at the last decision step must still be told
        if self.buffer or self.unanswered or self.events:
            rows, self.buffer = self.buffer, []
            batch: dict[str, Any] = {"trial": self.trial_id, "attempt": self.attempt, "rows": rows}
            if recorded is not None:
                batch["recorded"] = recorded
            if self.unanswered:
                batch["unanswered"], self.unanswered = self.unanswered, []
            if self.events:
                batch["events"], self.events = self.events, []
            self.channel.send(batch)
        self.last_send = time.monotonic()


_local = threading.local()


def current() -> TrialContext | None:
    """The context of the trial running in this thread, if any."""
    return getattr(_local, "context", None)


def set_current(context: TrialContext | None) -> None:
    _local.context = context
