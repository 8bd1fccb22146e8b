"""The driver side of a trial: what the driver knows of it from its first attempt to its end, and
how it turns reports into rows (the worker side is :mod:`hpnb.runner.worker`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.objectives import Objective, finite_number
from hpnb.core.store import ResultRow


@dataclass
class DrivenTrial:
    """Driver-side state of a trial from its first attempt to its end.

    Sequence numbers of stored rows continue across attempts (``seq_base``);
    after a retry, reports of steps already stored are dropped, so a retried
    run never stores a step twice.
    """

    trial_id: int
    params: dict[str, Any]
    attempt: int = 0
    retries: int = 0
    start: float = field(default_factory=time.time)
    started: bool = False
    attempt_started: bool = False
    attempt_began: float | None = None
    timed_out: str | None = None
    checkpoint_error: str | None = None
    worker: str | None = None
    lost_queued: int = 0
    #: attempts run again because a gang's rendezvous port was taken (never counted as retries)
    port_retries: int = 0
    #: the reference of its latest checkpoint in the checkpoint store
    checkpoint: str | None = None
    checkpoint_step: int | None = None
    seq_base: int = 0
    received_seq: int = 0
    last_stored_seq: int = 0
    last_stored_step: int | None = None
    last_value: float | None = None
    best_value: float | None = None
    last_step: int | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None
    stop_sent_at: float | None = None
    parent: int | None = None
    skip_through_step: int | None = None
    #: why its attempt is ending to pause (its slot is freed, it resumes from its checkpoint)
    pausing: str | None = None
    #: the user asked to pause it at its next decision point
    pause_requested: bool = False

    @property
    def start_step(self) -> int | None:
        """The step the next attempt continues from: its checkpoint's (None: from the start)."""
        return self.checkpoint_step if self.checkpoint is not None else None

    def new_attempt(self, skip_through_step: int | None = None) -> None:
        """Start the next attempt: its sequence numbers follow the stored ones.

        Args:
            skip_through_step: reports of the new attempt at or below this step are
                dropped (a retry re-runs steps already stored); None keeps them all
                (a population-based-training member continuing from a donor's step).
        """
        self.attempt += 1
        self.attempt_started = False
        self.attempt_began = None
        self.seq_base = self.last_stored_seq
        self.received_seq = 0
        self.skip_through_step = skip_through_step

    def accept(self, raw: list[Any], target: Objective) -> ResultRow | None:
        """The row to store for one report ``[seq, step, time, metrics, checkpoint(, waits)]``, or
        None when an earlier attempt already stored its step; ``target`` gives its value."""
        seq, step, at, metrics, _blob = raw[:5]  # a sixth item marks a row awaiting a verdict
        if int(seq) <= self.received_seq:
            return None  # Dask ran this attempt again (its worker left): these steps are stored
        self.received_seq = int(seq)
        if step is not None and self.skip_through_step is not None and step <= self.skip_through_step:
            return None
        value = finite_number(metrics.get(target.name))
        stored_seq = self.seq_base + int(seq)
        self._note(stored_seq, step, value, metrics, target)
        return ResultRow(self.trial_id, stored_seq, step, float(at), value, metrics)

    def note_best(self, value: float, target: Objective) -> None:
        """Keep ``value`` as the trial's best when it beats the best so far (the one place it changes)."""
        if self.best_value is None or target.is_better(value, self.best_value):
            self.best_value = value

    def _note(self, seq: int, step: int | None, value: float | None, metrics: dict[str, Any],
              target: Objective) -> None:
        self.last_stored_seq = max(self.last_stored_seq, seq)
        if step is not None:
            previous = self.last_stored_step
            self.last_stored_step = step if previous is None else max(previous, step)
            self.last_step = step
        self.metrics = {**self.metrics, **metrics}
        if value is not None:
            self.last_value = value
            self.note_best(value, target)
