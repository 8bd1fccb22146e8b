"""An in-memory executor that plays a script, for deterministic tests of the driver.

Each submitted attempt plays a list of steps at once, on the caller's thread:
:class:`Start` (it began on a worker), :class:`Report` (one batch of one row),
:class:`Done` (its outcome), :class:`Lost` (no outcome: its worker died or it was
never run), :class:`Call` (do something at that point, such as a user command) and
:class:`Hold` (it waits there until it is asked to stop, cancelled or abandoned).
A report at one of the task's decision points waits, as a real trial does, until
the driver gives its verdict: ``continue`` plays on, anything else ends the
attempt ``stopped`` right there.
Steps after :class:`Done` arrive after the outcome: late report batches. The
executor records every call (``submits``, ``stops``, ``cancels``, ``abandons``)
for tests to check. It imports no Dask; the driver's thread is its only caller.

Example:
    >>> from hpnb.runner.worker.objective import TrialTask
    >>> events = []
    >>> attempt = [Start(), Report(0, {"loss": 0.5}), Done(), Report(1, {"loss": 0.4})]
    >>> executor = ScriptedExecutor({0: [attempt]})  # trial 0: its attempt 0
    >>> executor.sink = events.append
    >>> executor.submit(print, TrialTask("demo", 0, 0, {}, "loss"))
    >>> [type(event).__name__ for event in events]
    ['AttemptStarted', 'ResultBatch', 'AttemptDone', 'ResultBatch']
    >>> events[2].outcome["last_seq"]  # counts the late batch
    2
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore
from hpnb.runner.executor import AttemptDone, AttemptStarted, Executor, ResultBatch
from hpnb.runner.worker.objective import TrialTask


@dataclass(frozen=True)
class Start:
    """The attempt began to run on ``worker``."""

    worker: str = "scripted-worker"


@dataclass(frozen=True)
class Report:
    """One report batch of one row: ``step``, ``metrics`` and an optional checkpoint (written to the
    task's checkpoint store, as a worker writes it; :func:`checkpoint_of` reads it back)."""

    step: int | None
    metrics: Mapping[str, Any]
    checkpoint: bytes | None = None


@dataclass(frozen=True)
class Done:
    """The attempt returned: ``status`` ok, stopped or failed (``error``: its traceback).

    As the worker side returns them, the outcome's metrics are the latest of every
    report of the attempt (late ones too) updated with ``metrics``, and ``last_seq``
    counts those reports unless given.
    """

    status: str = "ok"
    metrics: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    last_seq: int | None = None


@dataclass(frozen=True)
class Lost:
    """The attempt ended without an outcome (before or after :class:`Start`)."""

    reason: str = "the worker running this trial died"


@dataclass(frozen=True)
class Hold:
    """The attempt waits here: a stop request ends it ``stopped``, unless it ignores stops."""

    ignore_stop: bool = False


@dataclass(frozen=True)
class Call:
    """Call ``action()`` at this point of the attempt (a user command, a check)."""

    action: Callable[[], object]


Step = Start | Report | Done | Lost | Hold | Call
#: the steps of each attempt by trial id, or a function of the submitted task.
Script = Mapping[int, Sequence[Sequence[Step]]] | Callable[[TrialTask], Sequence[Step]]


@dataclass
class _Attempt:
    """Where one attempt is in its script."""

    task: TrialTask
    steps: deque[Step]
    seq: int = 0
    worker: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    held: Hold | None = None
    ended: bool = False
    last_step: int | None = None
    #: the decision step it waits at for a verdict, if any
    awaiting: int | None = None


class ScriptedExecutor(Executor):
    """Plays ``script`` for each submitted attempt; ``slots`` is its capacity.

    A stop request ends an attempt held at a :class:`Hold` with a ``stopped`` outcome
    (unless it ignores stops); ``cancel`` or ``abandon`` of an attempt that has not
    ended sends a lost outcome (reason ``cancelled``), as Dask does for a cancelled
    task. An abandoned attempt that had started holds its worker (``stuck_workers``).
    """

    def __init__(self, script: Script, slots: int = 1) -> None:
        super().__init__()
        self.script = script
        self.slots = slots
        self.submits: list[TrialTask] = []
        self.stops: list[tuple[int, int]] = []
        self.cancels: list[tuple[int, int]] = []
        self.abandons: list[tuple[int, int]] = []
        #: every verdict given, as (trial id, attempt, step, verdict)
        self.verdicts: list[tuple[int, int, int, str]] = []
        self.closed = False
        self._attempts: dict[tuple[int, int], _Attempt] = {}

    def capacity(self) -> int:
        return max(1, self.slots or 0)  # as Dask's: none free still counts one, the wait is told apart

    def tasks(self, trial_id: int) -> list[TrialTask]:
        """The tasks submitted for ``trial_id``, in order."""
        return [task for task in self.submits if task.trial_id == trial_id]

    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        _loaded[id(task)] = _read(task)  # what a worker starting the attempt would load
        attempt = self._attempts[(task.trial_id, task.attempt)] = _Attempt(
            task, deque(self._steps(task)), last_step=task.start_step)
        self.submits.append(task)
        self._play(attempt)

    def _steps(self, task: TrialTask) -> Sequence[Step]:
        if callable(self.script):
            return self.script(task)
        attempts = self.script.get(task.trial_id, ())
        if task.attempt >= len(attempts):
            raise LookupError(f"the script has no attempt {task.attempt} of trial {task.trial_id}")
        return attempts[task.attempt]

    def stop(self, trial_id: int, attempt: int) -> None:
        self.stops.append((trial_id, attempt))
        scripted = self._attempts.get((trial_id, attempt))
        if scripted is not None and scripted.held is not None and not scripted.held.ignore_stop:
            scripted.held, scripted.steps = None, deque()  # it returns at once, playing no more
            self._end(scripted, {"status": "stopped", "metrics": dict(scripted.metrics),
                                 "last_seq": scripted.seq, "error": None})

    def verdict(self, trial_id: int, attempt: int, step: int, verdict: str) -> None:
        self.verdicts.append((trial_id, attempt, step, verdict))
        scripted = self._attempts.get((trial_id, attempt))
        if scripted is None or scripted.ended or scripted.awaiting != step:
            return
        scripted.awaiting = None
        if verdict == "continue":
            self._play(scripted)
            return
        scripted.steps = deque()
        self._end(scripted, {"status": "stopped", "metrics": dict(scripted.metrics),
                             "last_seq": scripted.seq, "error": None})

    def cancel(self, trial_id: int, attempt: int) -> None:
        self.cancels.append((trial_id, attempt))
        scripted = self._attempts.get((trial_id, attempt))
        if scripted is not None and not scripted.ended:
            self._end(scripted, None, reason="cancelled")

    def abandon(self, trial_id: int, attempt: int) -> str | None:
        self.abandons.append((trial_id, attempt))
        scripted = self._attempts.get((trial_id, attempt))
        worker = None if scripted is None or scripted.ended else scripted.worker
        self.cancel(trial_id, attempt)
        if worker is None:
            return None  # it returned, or never started: no thread holds it
        return f"trial {trial_id} did not return after it was asked to stop: {worker} holds it"

    def unfinished(self) -> list[tuple[int, int]]:
        """The (trial id, attempt) of attempts that have sent no outcome yet."""
        return [key for key, attempt in self._attempts.items() if not attempt.ended]

    def stuck_workers(self) -> list[str]:
        """Workers of abandoned attempts still held (a scripted thread never returns)."""
        held = (self._attempts.get(key) for key in self.abandons)
        return sorted({a.worker for a in held if a is not None and a.worker and a.held is not None})

    def close(self) -> None:
        self.closed = True

    # -- playing ----------------------------------------------------------------------
    def _play(self, attempt: _Attempt) -> None:
        while attempt.steps:
            step = attempt.steps.popleft()
            if isinstance(step, Hold):
                attempt.held = step
                return
            self._perform(attempt, step)
            if attempt.awaiting is not None:
                return

    def _perform(self, attempt: _Attempt, step: Step) -> None:
        key = (attempt.task.trial_id, attempt.task.attempt)
        if isinstance(step, Start):
            attempt.worker = step.worker
            self.sink(AttemptStarted(*key, step.worker, time.time()))
        elif isinstance(step, Report):
            attempt.seq += 1
            attempt.metrics.update(step.metrics)
            ref = None if step.checkpoint is None else CheckpointStore(_location(attempt.task)).write_object(
                attempt.task.trial_id, step.step, step.checkpoint)
            row: list[Any] = [attempt.seq, step.step, time.time(), dict(step.metrics), ref]
            if step.step is not None:
                if attempt.task.decision_points.crossed(attempt.last_step, step.step):
                    row.append(True)
                    attempt.awaiting = step.step
                attempt.last_step = step.step
            self.sink(ResultBatch(*key, [row]))
        elif isinstance(step, Done):
            self._end(attempt, self._outcome(attempt, step))
        elif isinstance(step, Lost):
            self._end(attempt, None, reason=step.reason)
        elif isinstance(step, Call):
            step.action()

    @staticmethod
    def _outcome(attempt: _Attempt, done: Done) -> dict[str, Any]:
        """What the attempt returns: it made every report of its script, late ones included."""
        late = [step for step in attempt.steps if isinstance(step, Report)]
        metrics = dict(attempt.metrics)
        for report in late:
            metrics.update(report.metrics)
        last_seq = attempt.seq + len(late) if done.last_seq is None else done.last_seq
        return {"status": done.status, "metrics": {**metrics, **done.metrics}, "last_seq": last_seq,
                "error": done.error}

    def _end(self, attempt: _Attempt, outcome: dict[str, Any] | None, reason: str | None = None) -> None:
        """Send the attempt's one outcome (steps after it still play: late batches)."""
        if attempt.ended:
            return
        attempt.ended = True
        worker = attempt.worker if outcome is not None else None
        self.sink(AttemptDone(attempt.task.trial_id, attempt.task.attempt, outcome, worker=worker,
                              reason=reason))


def _location(task: TrialTask) -> CheckpointLocation:
    if task.checkpoints is None:
        raise ValueError(f"trial {task.trial_id}'s task names no checkpoint store")
    return task.checkpoints


#: what each submitted task's checkpoint held when it was submitted, by the task's id.
_loaded: dict[int, Any] = {}


def _read(task: TrialTask) -> Any:
    if task.checkpoint is None:
        return None
    return CheckpointStore(_location(task)).read_object(task.checkpoint)


def checkpoint_of(task: TrialTask) -> Any:
    """What ``task`` resumed from: the object its checkpoint held when it was submitted, or None."""
    return _loaded[id(task)] if id(task) in _loaded else _read(task)
