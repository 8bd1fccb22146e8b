"""The driver loop: ask -> submit -> results -> decide -> store -> listeners.

One driver thread owns a search: it is the only writer of the experiment's
rows in the store, the only caller of the strategy, the early-stopping rule and the
executor. Everything else (executor callbacks, user commands) reaches it as a
message on its queue, so no lock guards the search state.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.frozen import thaw
from hpnb.core.spec import ExperimentSpec
from hpnb.core.spec.values import describe_duration
from hpnb.core.store import Store
from hpnb.core.strategies.base import Strategy
from hpnb.core.summary import HEARTBEAT_INTERVAL
from hpnb.core.trial import Suggestion, TrialState
from hpnb.runner.checkpoint_refs import CheckpointRefs
from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore, location_for
from hpnb.runner.commands import Command, DriverCommands
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.executor import AttemptDone, AttemptOutput, AttemptStarted, Executor, ResultBatch
from hpnb.runner.lease import DriverLease
from hpnb.runner.pausing import Pauses
from hpnb.runner.recovery import Recovered
from hpnb.runner.settling import Settling
from hpnb.runner.store_writer import StoreWriter
from hpnb.runner.verdicts import EXPLOIT, STOP, Verdicts
from hpnb.runner.worker.objective import TrialTask

log = logging.getLogger("hpnb")

#: seconds a stop request may go unanswered before the attempt is abandoned.
STOP_GRACE = 3.0
#: the same after a time limit: a trial that reports learns of a stop within 0.2 s.
TIMEOUT_GRACE = 1.0
#: seconds to wait for report batches still in flight when an attempt returns.
LATE_BATCH_GRACE = 5.0
#: why an attempt the Dask scheduler ran a second time by itself counts as lost.
RERUN_REASON = "the worker running this trial died (the scheduler started it again from the beginning)"
#: how often (seconds) the driver asks the cluster how many worker threads it has.
CAPACITY_CHECK = 1.0
#: how often (seconds) the driver looks for a stop flag set in the store by another process.
STORE_STOP_POLL = 0.5
#: seconds a trial at a decision point waits for its verdict before it goes on by itself.
VERDICT_TIMEOUT = 10.0


@dataclass
class DriverState:
    """What the handle reads while the driver runs (plain values, swapped atomically)."""

    state: str = "RUNNING"
    budget: int = 0
    parallel: int = 1
    started: int = 0
    message: str | None = None


class Driver(threading.Thread):
    """Runs one search to its end in a background thread."""

    def __init__(self, *, objective: Callable[..., Any], spec: ExperimentSpec, experiment_id: int,
                 name: str, store: Store, executor: Executor, strategy: Strategy, stopping_rule: StoppingRule,
                 recovered: Recovered, budget: int, parallel: int | None,
                 scale: Callable[[int], None] | None = None, lease: DriverLease | None = None,
                 on_change: Callable[[], None] = lambda: None, on_end: Callable[[], None] = lambda: None,
                 checkpoints: CheckpointLocation | None = None) -> None:
        super().__init__(name=f"hpnb-driver-{name}", daemon=True)
        self.objective, self.spec, self.name = objective, spec, name
        self.experiment_id, self.store, self.executor = experiment_id, store, executor
        self.strategy, self.stopping_rule = strategy, stopping_rule
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.executor.sink = self.inbox.put
        self.location = checkpoints or location_for(
            spec.checkpoints.store, spec.checkpoints.keep, store.path, name, experiment_id,
            store.experiment_with_id(experiment_id).created)
        self.checkpoints = CheckpointRefs(CheckpointStore(self.location))
        self.writer = StoreWriter(store, experiment_id, strategy, stopping_rule, on_change,
                                  on_checkpoint_stored=self.checkpoints.committed)
        self.on_end = on_end
        self.scale = scale
        self.lease = lease
        #: set once the driver has stored its final state and let go of the search
        self.ended = threading.Event()
        self.deadline = None if spec.timeout is None else time.monotonic() + spec.timeout
        self.running: dict[int, DrivenTrial] = {}
        self.waiting: dict[int, tuple[AttemptDone, float]] = {}
        self.requeue: list[DrivenTrial] = list(recovered.requeue)
        self.next_id = recovered.next_id
        self.auto_parallel = parallel is None
        self.capacity = executor.capacity()
        self.next_capacity_check = time.monotonic() + CAPACITY_CHECK
        self.public = DriverState(budget=budget, parallel=parallel or self.capacity,
                                  started=recovered.started)
        self.writer.last_suggested = recovered.last_suggested
        self.writer.pending_ids = {r.trial_id for r in recovered.requeue}
        self.stopping: str | None = None
        self._closing = threading.Lock()
        self._closed = False
        self.exhausted = False
        self.commands = DriverCommands(self)
        self.settling = Settling(self)
        self.pauses = Pauses(self)
        self.verdicts = Verdicts(self)
        self.pauses.paused.update({r.trial_id: r for r in recovered.paused})
        for trial_id, (ref, step) in recovered.checkpoints.items():
            self.checkpoints.add(trial_id, ref, step)
        #: where trials wait for a verdict: the rule's and the strategy's decision points
        self.decision_points = stopping_rule.decision_points() | strategy.decision_points()
        #: what the search's message must keep saying whatever it ends with (stuck worker threads)
        self.notes: list[str] = []

    # -- the loop ----------------------------------------------------------------------
    def run(self) -> None:
        final, message = "COMPLETED", None
        try:
            self.writer.experiment(state="RUNNING", budget=self.public.budget, parallel=self.public.parallel,
                                   heartbeat=time.time())
            next_store_poll = next_beat = 0.0
            while True:
                self._fill_slots()
                if self._done() and self._close():
                    break
                self._handle(self._next_message())
                self._drain()
                self._expire()
                self._check_time_limits()
                self._check_capacity()
                if time.monotonic() >= next_store_poll:
                    next_store_poll = time.monotonic() + STORE_STOP_POLL
                    self.commands.poll_store_stop()
                if time.monotonic() >= next_beat:  # alive, for readers in any process on any host
                    next_beat = time.monotonic() + HEARTBEAT_INTERVAL
                    self.writer.experiment(heartbeat=time.time())
                self.writer.flush_if_due()
            final, message = self._final_state()
        except Exception as exc:  # a bug or a broken store: record it rather than die silently
            log.exception("hpnb search %s failed", self.name)
            final = "FAILED"
            message = f"the driver failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        finally:
            self._finish(final, message)

    def _next_message(self) -> Any:
        try:
            return self.inbox.get(timeout=0.05)
        except queue.Empty:
            return None

    def _drain(self) -> None:
        for _ in range(10_000):
            try:
                self._handle(self.inbox.get_nowait())
            except queue.Empty:
                return

    def _handle(self, message: Any) -> None:
        if message is None:
            return
        if isinstance(message, ResultBatch):
            self._on_batch(message)
        elif isinstance(message, AttemptStarted):
            self._on_started(message)
        elif isinstance(message, AttemptDone):
            self._on_done(message)
        elif isinstance(message, AttemptOutput):
            self.writer.output(message.trial_id, message.output)
        elif isinstance(message, Command):
            self.commands.handle(message)

    def offer(self, command: Command) -> bool:
        """Hand ``command`` to the loop; False once the loop has ended (it would be lost)."""
        with self._closing:
            if self._closed:
                return False
            self.inbox.put(command)
            return True

    def _close(self) -> bool:
        """Stop accepting commands, unless one that arrived meanwhile gives more work."""
        with self._closing:
            self._drain()
            if not self._done():
                return False
            self._closed = True
            return True

    def _done(self) -> bool:
        if self.running:
            return False
        if self.stopping:
            return True
        if self.pauses:
            return False
        return self.exhausted or (not self.requeue and self.public.started >= self.public.budget)

    # -- starting trials --------------------------------------------------------------
    def _check_capacity(self) -> None:
        """Follow workers joining and leaving; with no ``parallel`` set, use every slot."""
        if time.monotonic() < self.next_capacity_check:
            return
        self.next_capacity_check = time.monotonic() + CAPACITY_CHECK
        self.capacity = self.executor.capacity()
        if self.auto_parallel and self.capacity != self.public.parallel:
            self.public.parallel = self.capacity

    def in_flight_limit(self) -> int:
        """How many attempts may be submitted at once.

        When every slot is used and results do not change later suggestions, the
        next trials wait queued on the cluster, so a slot never idles while its
        next trial travels from the driver.
        """
        parallel = self.public.parallel
        if parallel >= self.capacity and not self.strategy.learns_from_results:
            return parallel + self.capacity
        return parallel

    def _fill_slots(self) -> None:
        while not self.stopping and len(self.running) < self.in_flight_limit():
            if self.requeue:
                self._submit(self.requeue.pop(0))
                continue
            suggestion = None
            if not self.exhausted and self.public.started < self.public.budget:
                suggestion = self._suggestion(self.next_id)
                self.exhausted = suggestion is None
            if suggestion is None:
                if not self._resume_paused():
                    return
                continue
            trial = DrivenTrial(self.next_id, dict(suggestion.params), parent=suggestion.parent)
            self.writer.last_suggested = self.next_id
            self.writer.pending_ids.add(self.next_id)
            self.next_id += 1
            self.public.started += 1
            self.writer.add_trial(trial)
            self._submit(trial)

    def _suggestion(self, trial_id: int) -> Suggestion | None:
        """The strategy's next configuration; the first trials run the enqueued ones."""
        if trial_id < len(self.spec.enqueue):
            return self.strategy.adopt(trial_id, thaw(self.spec.enqueue[trial_id]))
        return self.strategy.suggest(trial_id)

    def _submit(self, trial: DrivenTrial) -> None:
        self.running[trial.trial_id] = trial
        self.writer.trial(trial.trial_id, state="PENDING", retries=trial.retries)
        self.executor.submit(self.objective, self.task_of(trial))

    def _on_started(self, started: AttemptStarted) -> None:
        trial = self.running.get(started.trial_id)
        if trial is None or started.attempt != trial.attempt:
            return
        if trial.attempt_started:
            self._on_rerun(trial)
            return
        trial.attempt_started = True
        trial.attempt_began = time.monotonic()
        trial.worker = started.worker
        if not trial.started:
            trial.start, trial.started = started.time, True
        self.writer.trial(trial.trial_id, state="RUNNING", start=trial.start, worker=started.worker)

    def _on_rerun(self, trial: DrivenTrial) -> None:
        """An attempt started twice: its worker died and the scheduler (``allowed-failures``
        above 0) ran it again by itself, from step 0 and without the checkpoint. That run is
        stopped and the trial retried from its latest checkpoint, as for any lost worker."""
        self.executor.stop(trial.trial_id, trial.attempt)
        self.executor.cancel(trial.trial_id, trial.attempt)
        self.settling.fail_or_retry(trial, RERUN_REASON, trial.worker)

    def _resume_paused(self) -> bool:
        """Run the paused trial that is next in turn, if any."""
        trial = self.pauses.next_to_resume()
        if trial is None:
            return False
        self.prepare_resume(trial)
        self._submit(trial)
        return True

    def prepare_resume(self, trial: DrivenTrial) -> None:
        """A paused trial goes on: with the exploit it paused before deciding, if the strategy has one."""
        exploit = self.strategy.on_resume(trial.trial_id)
        if exploit is not None:
            self.verdicts.restart_from_donor(trial, exploit)

    def task_of(self, trial: DrivenTrial) -> TrialTask:
        return TrialTask(self.name, trial.trial_id, trial.attempt, trial.params, self.spec.metric,
                         trial.checkpoint, decision_points=self.decision_points,
                         start_step=trial.start_step, verdict_timeout=VERDICT_TIMEOUT,
                         objectives=self.objective_names, checkpoints=self.location,
                         fallback=tuple(c for c in self.checkpoints.candidates(trial.trial_id)
                                        if c[0] != trial.checkpoint))

    @property
    def objective_names(self) -> tuple[str, ...]:
        """Every objective's metric when the search has several, else nothing."""
        return tuple(o.name for o in self.spec.objectives) if self.spec.is_multi_objective else ()

    # -- results ----------------------------------------------------------------------
    def _on_batch(self, batch: ResultBatch) -> None:
        trial = self.running.get(batch.trial_id)
        for name, data in batch.events:  # what the worker noted (a checkpoint found missing)
            self.writer.event(name, data)
        if batch.unanswered:
            self.writer.event("verdict_timeout", {"trial": batch.trial_id, "attempt": batch.attempt,
                                                  "steps": list(batch.unanswered)})
        if trial is None or batch.attempt != trial.attempt:
            # a stale attempt (lost, replaced by an exploit, or cancelled after a stop): if it
            # waits at a decision point, it ends there rather than after the bounded wait
            self.verdicts.answer_waiting(batch, STOP)
            return
        for raw in batch.rows:
            verdict = self.verdicts.on_row(trial, raw)
            if len(raw) > 5 and raw[1] is not None:
                self.executor.verdict(batch.trial_id, batch.attempt, int(raw[1]), verdict)
            if verdict == EXPLOIT:
                break  # the member restarts from a donor: the rest of this batch is stale
        self.writer.trial(trial.trial_id, last_step=trial.last_step, best=trial.best_value,
                          value=trial.last_value)

    def keep_checkpoint(self, trial: DrivenTrial, step: int | None, ref: Any) -> None:
        """A worker wrote a checkpoint (``ref``) or failed to (``{"error": why}``)."""
        if isinstance(ref, str):
            trial.checkpoint, trial.checkpoint_step = ref, step
            self.checkpoints.add(trial.trial_id, ref, step)
            self.writer.checkpoint(trial.trial_id, step, ref)
            return
        error = str(ref.get("error")) if isinstance(ref, dict) else f"not a checkpoint reference: {ref!r}"
        if error != trial.checkpoint_error:  # the trial resumes from its previous one: say so once
            trial.checkpoint_error = error
            self.writer.event("checkpoint_failed", {"trial": trial.trial_id, "step": step, "error": error})

    def request_stop(self, trial: DrivenTrial, reason: str, waits: bool = False) -> None:
        """Stop an attempt: by its verdict when it waits at a decision point, else by its stop flag."""
        if trial.stop_reason is None:
            trial.stop_reason = reason
            trial.stop_sent_at = time.monotonic()
            if not waits:
                self.executor.stop(trial.trial_id, trial.attempt)

    def _on_done(self, done: AttemptDone) -> None:
        trial = self.running.get(done.trial_id)
        if trial is None or done.attempt != trial.attempt:
            return
        if self._batches_missing(trial, done):
            # the attempt returned before its last report batches arrived: give them a moment
            self.waiting[done.trial_id] = (done, time.monotonic() + LATE_BATCH_GRACE)
            return
        self.settling.settle(trial, done)

    @staticmethod
    def _batches_missing(trial: DrivenTrial, done: AttemptDone) -> bool:
        return done.outcome is not None and trial.received_seq < int(done.outcome.get("last_seq", 0))

    def _expire(self) -> None:
        now = time.monotonic()
        for trial_id, (done, deadline) in list(self.waiting.items()):
            trial = self.running.get(trial_id)
            if trial is None or trial.attempt != done.attempt:
                del self.waiting[trial_id]  # superseded (an exploit restarted the member meanwhile)
                continue
            if not self._batches_missing(trial, done) or now >= deadline:
                del self.waiting[trial_id]
                self.settling.settle(trial, done)
        for trial in list(self.running.values()):
            if trial.trial_id in self.waiting:
                continue  # it returned: only its late batches are awaited, nothing to abandon
            grace = STOP_GRACE if trial.timed_out is None else TIMEOUT_GRACE
            if trial.stop_sent_at is not None and now - trial.stop_sent_at > grace:
                trial.stop_sent_at = None
                self._abandon(trial)

    def _abandon(self, trial: DrivenTrial) -> None:
        """Give up on an attempt that did not answer its stop request in time."""
        what = self.executor.abandon(trial.trial_id, trial.attempt)
        if what is not None:
            self.writer.event("abandoned", {"trial": trial.trial_id, "attempt": trial.attempt,
                                            "what": what})
            if self.executor.stuck_workers():
                self.notes.append(what)
                self.writer.experiment(message=self._message(self.public.message))

    def _check_time_limits(self) -> None:
        """The search's ``timeout`` and each trial's ``trial_timeout``."""
        now = time.monotonic()
        if self.deadline is not None and now >= self.deadline and not self.stopping:
            limit = describe_duration(self.spec.timeout or 0.0)
            self.commands.stop_all(f"the search reached its time limit (timeout: {limit})")
        trial_limit = self.spec.trial_timeout
        if trial_limit is None:
            return
        for trial in self.running.values():
            began = trial.attempt_began
            if began is not None and trial.stop_reason is None and now - began > trial_limit:
                trial.timed_out = f"ran longer than {describe_duration(trial_limit)} (trial_timeout)"
                self.request_stop(trial, trial.timed_out)

    # -- commands -----------------------------------------------------------------------
    # -- the end ------------------------------------------------------------------------
    def current_message(self) -> str | None:
        """The search's message as the handle shows it: the final one once ended, else the reason
        it is stopping, with what it must keep saying (stuck worker threads)."""
        return self.public.message if self.ended.is_set() else self._message(self.public.message)

    def _message(self, main: str | None) -> str | None:
        return "\n".join(part for part in (*self.notes, main) if part) or None  # short notes first

    def _final_state(self) -> tuple[str, str | None]:
        state, message = self._outcome()
        return state, self._message(message)

    def _outcome(self) -> tuple[str, str | None]:
        if self.stopping:
            return self.stopping, self.public.message
        self.writer.flush()
        trials = self.store.trials(self.experiment_id)
        failed = [t for t in trials if t.state == TrialState.FAILED.value]
        if failed and len(failed) == len(trials):
            first = min(failed, key=lambda t: t.trial_id)
            return "FAILED", f"every trial failed ({len(failed)}); the first error was:\n{first.error}"
        return "COMPLETED", None

    def _finish(self, state: str, message: str | None) -> None:
        self.public.state = state
        self.public.message = message
        try:
            self._release_unfinished()
            self.writer.experiment(state=state, message=message)
            self.writer.flush()
            self.checkpoints.sweep()
        except Exception:
            log.exception("hpnb could not record the end of search %s", self.name)
        finally:
            try:
                self.executor.close()
                if self.lease is not None:
                    self.lease.release()
            finally:
                self.ended.set()
                self.on_end()

    def _release_unfinished(self) -> None:
        """Trials still running when the loop ends (it failed) go back to PENDING: a resume
        runs them again from their checkpoints; none is left RUNNING by a driver that ended."""
        for trial in list(self.running.values()) + self.requeue:
            if trial.attempt_started:
                self.executor.stop(trial.trial_id, trial.attempt)
            self.executor.cancel(trial.trial_id, trial.attempt)
            self.writer.trial(trial.trial_id, state=TrialState.PENDING.value, retries=trial.retries)
        self.running.clear()

