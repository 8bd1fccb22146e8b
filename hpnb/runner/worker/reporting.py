"""The trial side: ``report``, ``load_checkpoint`` and ``TrialStopped``.

A trial runs inside :func:`run_trial` on a Dask worker thread (or in-process
for tests). Reports are buffered and sent to the driver in batches through a
sink; a stop check runs at most every :data:`STOP_CHECK_INTERVAL` seconds.

At a decision point of the search (a rung of ASHA, a ready step of population-based
training: :class:`~hpnb.core.decision_points.DecisionPoints`), ``report`` sends what
it holds and waits for the driver's verdict: it returns on ``continue`` and raises
:class:`TrialStopped` on ``stop``, ``pause`` or ``exploit``, so the decision lands at
that very step. The wait is bounded: with no verdict after ``verdict_timeout``
seconds (the driver is gone or stalled) the trial continues and says so in its next
batch.
Outside a search, :func:`report` does nothing and :func:`load_checkpoint`
returns None, so the same objective runs plainly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.numbers import metric_number, metric_numbers
from hpnb.runner.checkpoint_store import CheckpointLocation
from hpnb.runner.worker import checkpointing

#: a batch is sent once it holds this many results ...
BATCH_SIZE = 200
#: ... or once this many seconds have passed since the last send.
BATCH_INTERVAL = 0.05
#: how often (seconds) a reporting trial asks whether it must stop.
STOP_CHECK_INTERVAL = 0.2
#: the verdict that lets a trial go on; any other ends its attempt (stop, pause, exploit).
CONTINUE = "continue"


class TrialStopped(Exception):
    """Raised by :func:`report` when the driver asked the trial to stop.

    The runner catches it; an objective may catch it too to clean up, and
    then should return: the attempt ends as stopped all the same.
    """


@dataclass
class TrialChannel:
    """How a running trial talks to its driver.

    Attributes:
        send: sends one batch (a dict, msgpack-serialisable) to the driver.
        should_stop: True once the driver asked this trial to stop.
        await_verdict: waits at most ``timeout`` seconds for the driver's verdict on ``step``;
            None when none came.
    """

    send: Callable[[dict[str, Any]], None]
    should_stop: Callable[[], bool]
    await_verdict: Callable[[int, float], str | None] = lambda step, timeout: CONTINUE


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
        if checkpoint is not None or len(self.buffer) >= BATCH_SIZE or now - self.last_send >= BATCH_INTERVAL:
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

    def flush(self) -> None:
        # a batch may carry no rows: a wait in vain at the last decision step must still be told
        if self.buffer or self.unanswered or self.events:
            rows, self.buffer = self.buffer, []
            batch: dict[str, Any] = {"trial": self.trial_id, "attempt": self.attempt, "rows": rows}
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


def report(step: int | None = None, checkpoint: Any = None, **metrics: Any) -> None:
    """Report metrics of the running trial; a no-op outside a search.

    Args:
        step: the training step (epoch, iteration) these metrics belong to.
        checkpoint: any picklable object to resume from, or the path of a folder (written to
            the checkpoint store by this worker; kept: the latest ones).
        **metrics: metric values, e.g. ``val_loss=0.3``.

    Raises:
        TrialStopped: the driver asked this trial to stop (early stopping, a
            click on Stop, the search stopped).

    Example:
        >>> import hpnb
        >>> hpnb.report(step=1, val_loss=0.5)  # outside a search: nothing happens
    """
    context = current()
    if context is None:
        return
    if step is not None and type(step) is not int:
        step = _step_number(step)
    clean = metric_numbers(metrics)
    send_pending(context, step)
    ref = None
    if checkpoint is not None:
        ref = checkpointing.save(context, step, checkpoint)
    elif context.pending_checkpoint is not None:
        ref, context.pending_checkpoint = context.pending_checkpoint[1], None
    context.add(step, clean, ref)
    if context.stop_requested:
        context.flush()
        context.stop_raised = True
        raise TrialStopped(f"trial {context.trial_id} was asked to stop ({context.stop_reason})")


def load_checkpoint() -> Any:
    """The checkpoint this trial should resume from, or None on a fresh start.

    Set after a retry (the trial's own latest checkpoint) or a population-based
    training exploit (the donor's checkpoint). A picklable checkpoint is returned as
    the object; a folder checkpoint (:func:`hpnb.checkpoint_dir`) as the path of a local
    folder holding its files (treat it as read-only).

    Example:
        >>> import hpnb
        >>> hpnb.load_checkpoint() is None
        True
    """
    context = current()
    if context is None or not context.resume_from:
        return None
    return checkpointing.load(context)


def send_pending(context: TrialContext, step: int | None) -> None:
    """Send a folder checkpoint of another step than ``step`` (or of the attempt's end: None)
    in a row of its own, so that its step is the one recorded with it."""
    pending = context.pending_checkpoint
    if pending is not None and (step is None or pending[0] != step):
        context.pending_checkpoint = None
        context.add(pending[0], {}, pending[1])


def _step_number(step: Any) -> int:
    number = metric_number("step", step)
    if number is None or number != int(number):
        raise TypeError(f"step must be a whole number (got {step!r})")
    return int(number)
