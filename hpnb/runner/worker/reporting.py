"""The trial side: ``report``, ``load_checkpoint`` and ``TrialStopped``.

A trial runs inside :func:`run_trial` on a Dask worker thread (or in-process
for tests). Reports are buffered and sent to the driver in batches through a
sink; a stop check runs at most every :data:`STOP_CHECK_INTERVAL` seconds.
Outside a search, :func:`report` does nothing and :func:`load_checkpoint`
returns None, so the same objective runs plainly.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.numbers import metric_number, metric_numbers

#: a batch is sent once it holds this many results ...
BATCH_SIZE = 200
#: ... or once this many seconds have passed since the last send.
BATCH_INTERVAL = 0.05
#: how often (seconds) a reporting trial asks whether it must stop.
STOP_CHECK_INTERVAL = 0.2


class TrialStopped(Exception):
    """Raised by :func:`report` when the driver asked the trial to stop.

    The runner catches it; an objective may catch it too to clean up, and
    then should return.
    """


@dataclass
class TrialChannel:
    """How a running trial talks to its driver.

    Attributes:
        send: sends one batch (a dict, msgpack-serialisable) to the driver.
        should_stop: True once the driver asked this trial to stop.
    """

    send: Callable[[dict[str, Any]], None]
    should_stop: Callable[[], bool]


@dataclass
class TrialContext:
    """State of the trial running in this thread."""

    experiment: str
    trial_id: int
    attempt: int
    channel: TrialChannel
    checkpoint: bytes | None = None
    seq: int = 0
    buffer: list[list[Any]] = field(default_factory=list)
    last_send: float = field(default_factory=time.monotonic)
    last_stop_check: float = field(default_factory=time.monotonic)
    stop_requested: bool = False
    last_metrics: dict[str, Any] = field(default_factory=dict)

    def add(self, step: int | None, metrics: dict[str, Any], checkpoint: bytes | None) -> None:
        self.seq += 1
        self.buffer.append([self.seq, step, time.time(), metrics, checkpoint])
        self.last_metrics = metrics
        now = time.monotonic()
        if checkpoint is not None or len(self.buffer) >= BATCH_SIZE or now - self.last_send >= BATCH_INTERVAL:
            self.flush()
        if now - self.last_stop_check >= STOP_CHECK_INTERVAL:
            self.last_stop_check = now
            self.stop_requested = self.stop_requested or self.channel.should_stop()

    def flush(self) -> None:
        if self.buffer:
            rows, self.buffer = self.buffer, []
            self.channel.send({"trial": self.trial_id, "attempt": self.attempt, "rows": rows})
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
        checkpoint: any picklable object to resume from (kept: the latest one).
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
    blob = None if checkpoint is None else pickle.dumps(checkpoint, protocol=pickle.HIGHEST_PROTOCOL)
    context.add(step, clean, blob)
    if context.stop_requested:
        context.flush()
        raise TrialStopped(f"trial {context.trial_id} was asked to stop")


def load_checkpoint() -> Any:
    """The checkpoint this trial should resume from, or None on a fresh start.

    Set after a retry (the trial's own latest checkpoint) or a population-based
    training exploit (the donor's checkpoint).

    Example:
        >>> import hpnb
        >>> hpnb.load_checkpoint() is None
        True
    """
    context = current()
    if context is None or context.checkpoint is None:
        return None
    return pickle.loads(context.checkpoint)


def _step_number(step: Any) -> int:
    number = metric_number("step", step)
    if number is None or number != int(number):
        raise TypeError(f"step must be a whole number (got {step!r})")
    return int(number)
