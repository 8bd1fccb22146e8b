"""The driver loop: ask -> submit -> results -> decide -> store -> listeners.

One driver thread owns a search: it is the only writer of the experiment's
rows in the store, the only caller of the strategy, the early-stopping rule and the
executor. Everything else (executor callbacks, user commands) reaches it as a
message on its queue, so no lock guards the search state. Its parts (commands, pauses,
exploits, verdicts, settling) share a :class:`~hpnb.runner.context.DriverContext`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.frozen import thaw
from hpnb.core.spec import ExperimentSpec
from hpnb.core.spec.values import describe_duration
from hpnb.core.store import Store
from hpnb.core.strategies.base import Strategy
from hpnb.core.summary import HEARTBEAT_INTERVAL, ExperimentState
from hpnb.core.trial import Suggestion, TrialState
from hpnb.runner.checkpoint_refs import CheckpointRefs
from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore, search_location
from hpnb.runner.commands import DriverCommands
from hpnb.runner.context import DriverContext, DriverState
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.ending import TrialEnds
from hpnb.runner.executor import (
    AttemptDone,
    AttemptOutput,
    AttemptStarted,
    Executor,
    RanksChanged,
    ResultBatch,
)
from hpnb.runner.exploits import Exploits
from hpnb.runner.lease import Lease
from hpnb.runner.pausing import Pauses
from hpnb.runner.recovery import Recovered, adopt_legacy
from hpnb.runner.settling import Settling
from hpnb.runner.store_writer import StoreWriter
from hpnb.runner.verdicts import EXPLOIT, STOP, Verdicts
from hpnb.runner.worker_wait import WorkerWait

__all__ = ["WAKE", "Driver", "DriverState"]

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
#: the same for a while after the cluster shrank, so a worker that comes back (a nanny restarts
#: a killed worker in well under a second) gets trials at once rather than at the next check.
CAPACITY_RECHECK = 0.2
#: seconds after the cluster shrank during which the driver looks at :data:`CAPACITY_RECHECK`.
RECHECK_WINDOW = 30.0
#: how often (seconds) the driver looks for commands in the store (any process may send them).
COMMAND_POLL = 0.1
#: put in the inbox by a sender in this process: commands wait in the store, read them now.
WAKE = object()


class TrialsCannotRun(Exception):
    """No worker of the cluster can run a trial (they lack its per-trial resources): the search
    ends as failed with the reason, as a refusal before the start would have said it."""


class Driver(threading.Thread):
    """Runs one search to its end in a background thread."""

    def __init__(self, *, objective: Callable[..., Any], spec: ExperimentSpec, experiment_id: int,
                 name: str, store: Store, executor: Executor, strategy: Strategy,
                 stopping_rule: StoppingRule, recovered: Recovered, budget: int, parallel: int | None,
                 scale: Callable[[int], None] | None = None, lease: Lease | None = None,
                 on_change: Callable[[], None] = lambda: None, on_end: Callable[[], None] = lambda: None,
                 checkpoints: CheckpointLocation | None = None) -> None:
        super().__init__(name=f"hpnb-driver-{name}", daemon=True)
        self.spec, self.name, self.experiment_id, self.store = spec, name, experiment_id, store
        self.executor, self.strategy, self.stopping_rule = executor, strategy, stopping_rule
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.executor.sink = self.inbox.put
        created = store.experiment_with_id(experiment_id).created
        location = checkpoints or search_location(store.path, name, experiment_id, created, spec.to_dict())
        checkpoint_store = CheckpointStore(location)
        adopt_legacy(recovered, checkpoint_store, store.path, experiment_id)
        refs = CheckpointRefs(checkpoint_store, recovered.checkpoints)
        self.writer = StoreWriter(store, experiment_id, strategy, stopping_rule, on_change,
                                  on_checkpoint_stored=refs.committed)
        capacity = executor.capacity()
        self.public = DriverState(budget=budget, parallel=parallel or capacity, started=recovered.started)
        self.context = DriverContext(
            name=name, experiment_id=experiment_id, spec=spec, objective=objective, store=store,
            writer=self.writer, executor=executor, strategy=strategy, stopping_rule=stopping_rule,
            checkpoints=refs, location=location, public=self.public, requeue=list(recovered.requeue),
            paused={r.trial_id: r for r in recovered.paused},
            decision_points=stopping_rule.decision_points() | strategy.decision_points(),
            auto_parallel=parallel is None, capacity=capacity, scale=scale)
        self.on_end, self.lease = on_end, lease
        #: set once the driver has stored its final state and let go of the search
        self.ended = threading.Event()
        self.deadline = None if spec.timeout is None else self.context.clock() + spec.timeout
        self.waiting: dict[int, tuple[AttemptDone, float]] = {}
        self.next_id = recovered.next_id
        self.next_capacity_check = self.context.clock() + CAPACITY_CHECK
        #: the slots the workers had at the last check, the most seen, and when they last fell
        self.last_slots = self.peak_slots = executor.slots or 0
        self.shrunk_at = float("-inf")
        self._note_limit()
        self.writer.last_suggested = recovered.last_suggested
        self.writer.pending_ids = {r.trial_id for r in recovered.requeue}
        self._assemble_parts()
        #: what the search's message must keep saying whatever it ends with (stuck worker threads)
        self.notes: list[str] = []

    def _assemble_parts(self) -> None:
        """The driver's parts, each given the context and the parts it uses (none holds the driver)."""
        context = self.context
        self.exploits = Exploits(context)
        self.ends = TrialEnds(context, self.exploits)
        self.pauses = Pauses(context, self.exploits, self.ends)
        self.verdicts = Verdicts(context, self.exploits, self.pauses)
        self.settling = Settling(context, self.pauses, self.ends)
        self.commands = DriverCommands(context, self.pauses)
        self.worker_wait = WorkerWait(context, self.spec.resources.wait_for_workers, self._message)

    # -- the loop ----------------------------------------------------------------------
    def run(self) -> None:
        final, message = ExperimentState.COMPLETED, None
        try:
            self.writer.experiment(state=ExperimentState.RUNNING.value, budget=self.public.budget,
                                   parallel=self.public.parallel, heartbeat=time.time())
            next_command_poll = next_beat = 0.0
            while True:
                self._fill_slots()
                if self._done() and self._close():
                    break
                self._handle(self._next_message())
                self._drain()
                self._expire()
                self._check_time_limits()
                self._check_capacity()
                if self.context.clock() >= next_command_poll:
                    next_command_poll = self.context.clock() + COMMAND_POLL
                    self.commands.poll()
                if self.context.clock() >= next_beat:  # alive, for readers in any process on any host
                    next_beat = self.context.clock() + HEARTBEAT_INTERVAL
                    self.writer.experiment(heartbeat=time.time())
                self.writer.flush_if_due()
            final, message = self._final_state()
        except TrialsCannotRun as exc:
            final, message = ExperimentState.FAILED, str(exc)
        except Exception as exc:  # a bug or a broken store: record it rather than die silently
            log.exception("hpnb search %s failed", self.name)
            final = ExperimentState.FAILED
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
        elif isinstance(message, RanksChanged):
            self.writer.event("ranks", message.to_event())
        elif message is WAKE:
            self.commands.poll()

    def wake(self) -> None:
        """Read the store's pending commands now rather than at the next poll."""
        self.inbox.put(WAKE)

    def _close(self) -> bool:
        """End the loop, unless a message or a command that came meanwhile gives more work."""
        self._drain()
        self.commands.poll()
        return self._done()

    def _done(self) -> bool:
        c = self.context
        if c.running:
            return False
        if c.stopping:
            return True
        if self.pauses:
            return False
        return c.exhausted or (not c.requeue and self.public.started >= self.public.budget)

    # -- starting trials --------------------------------------------------------------
    def _check_capacity(self) -> None:
        """Follow workers joining and leaving; with no ``parallel`` set, use every slot."""
        c = self.context
        if self.context.clock() < self.next_capacity_check:
            return
        self.next_capacity_check = self.context.clock() + CAPACITY_CHECK
        c.capacity = self.executor.capacity()
        self._recheck_soon_when_short(self.executor.slots)
        if self.executor.unfit is not None:
            raise TrialsCannotRun(self.executor.unfit)
        self.worker_wait.check(self.executor.slots)
        if c.auto_parallel and c.capacity != self.public.parallel:
            self.public.parallel = c.capacity
        self._note_limit()

    def _recheck_soon_when_short(self, slots: int | None) -> None:
        if slots is None:  # an executor that does not know its workers' slots
            return
        now = self.context.clock()
        if slots < self.last_slots:
            self.shrunk_at = now
        self.last_slots, self.peak_slots = slots, max(self.peak_slots, slots)
        if slots < self.peak_slots and now - self.shrunk_at < RECHECK_WINDOW:
            self.next_capacity_check = now + CAPACITY_RECHECK

    def _note_limit(self) -> None:
        """Say (in the events) when the workers' resources allow fewer trials than ``parallel``."""
        c = self.context
        limited = self.executor.limited_by if c.capacity < self.public.parallel or c.auto_parallel else None
        if limited != self.public.limited_by:
            self.public.limited_by = limited
            self.writer.event("slots", {"slots": c.capacity, "limited_by": limited})

    def _fill_slots(self) -> None:
        """Start trials while slots are free, sent to the executor together at the end (on
        hundreds of slots, one message to the scheduler rather than one per trial)."""
        batch: list[DrivenTrial] = []
        try:
            self._fill(batch)
        finally:
            if batch:
                self.executor.submit_many(self.context.objective, [self.context.task_of(t) for t in batch])

    def _fill(self, batch: list[DrivenTrial]) -> None:
        c = self.context
        while not c.stopping and len(c.running) < c.in_flight_limit():
            if c.requeue:
                self._submit(c.requeue.pop(0), batch)
                continue
            suggestion = None
            if not c.exhausted and self.public.started < self.public.budget:
                suggestion = self._suggestion(self.next_id)
                c.exhausted = suggestion is None
            if suggestion is None:
                if not self._resume_paused(batch):
                    return
                continue
            trial = DrivenTrial(self.next_id, dict(suggestion.params), parent=suggestion.parent)
            self.writer.last_suggested = self.next_id
            self.writer.pending_ids.add(self.next_id)
            self.next_id += 1
            self.public.started += 1
            self.writer.add_trial(trial)
            self._submit(trial, batch)

    def _suggestion(self, trial_id: int) -> Suggestion | None:
        """The strategy's next configuration; the first trials run the enqueued ones."""
        if trial_id < len(self.spec.enqueue):
            return self.strategy.adopt(trial_id, thaw(self.spec.enqueue[trial_id]))
        suggestion = self.strategy.suggest(trial_id)
        event = None if suggestion is None else suggestion.info.get("event")
        if isinstance(event, dict):  # e.g. auto switching strategies
            self.writer.event(str(event.get("kind", "strategy")), event)
        return suggestion

    def _submit(self, trial: DrivenTrial, batch: list[DrivenTrial]) -> None:
        """Count ``trial`` as running; it goes to the executor with ``batch``."""
        self.context.running[trial.trial_id] = trial
        self.writer.trial(trial.trial_id, state=TrialState.PENDING.value, retries=trial.retries)
        batch.append(trial)

    def _on_started(self, started: AttemptStarted) -> None:
        trial = self.context.running.get(started.trial_id)
        if trial is None or started.attempt != trial.attempt:
            return
        if trial.attempt_started:
            self._on_rerun(trial)
            return
        trial.attempt_started = True
        trial.attempt_began = self.context.clock()
        trial.worker = started.worker
        if not trial.started:
            trial.start, trial.started = started.time, True
        self.writer.trial(trial.trial_id, state=TrialState.RUNNING.value, start=trial.start,
                          worker=started.worker)

    def _on_rerun(self, trial: DrivenTrial) -> None:
        """An attempt started twice: its worker died and the scheduler (``allowed-failures``
        above 0) ran it again by itself, from step 0 and without the checkpoint. That run is
        stopped and the trial retried from its latest checkpoint, as for any lost worker."""
        self.executor.stop(trial.trial_id, trial.attempt)
        self.executor.cancel(trial.trial_id, trial.attempt)
        self.settling.fail_or_retry(trial, RERUN_REASON, trial.worker)

    def _resume_paused(self, batch: list[DrivenTrial]) -> bool:
        """Run the paused trial that is next in turn, if any."""
        trial = self.pauses.next_to_resume()
        if trial is None:
            return False
        self.exploits.prepare_resume(trial)
        self._submit(trial, batch)
        return True

    # -- results ----------------------------------------------------------------------
    def _on_batch(self, batch: ResultBatch) -> None:
        self._judge_batch(batch)
        if batch.recorded is not None:  # its checkpoint is known here now: a retry resumes from it
            self.executor.recorded(batch.trial_id, batch.attempt, batch.recorded)

    def _judge_batch(self, batch: ResultBatch) -> None:
        trial = self.context.running.get(batch.trial_id)
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

    def _on_done(self, done: AttemptDone) -> None:
        trial = self.context.running.get(done.trial_id)
        if trial is None or done.attempt != trial.attempt:
            return
        if done.outcome is None and done.reason != "cancelled":  # its worker may be gone: look now
            self.next_capacity_check = self.context.clock()
        if self._batches_missing(trial, done):
            # the attempt returned before its last report batches arrived: give them a moment
            self.waiting[done.trial_id] = (done, self.context.clock() + LATE_BATCH_GRACE)
            return
        self.settling.settle(trial, done)

    @staticmethod
    def _batches_missing(trial: DrivenTrial, done: AttemptDone) -> bool:
        return done.outcome is not None and trial.received_seq < int(done.outcome.get("last_seq", 0))

    def _expire(self) -> None:
        now, running = self.context.clock(), self.context.running
        for trial_id, (done, deadline) in list(self.waiting.items()):
            trial = running.get(trial_id)
            if trial is None or trial.attempt != done.attempt:
                del self.waiting[trial_id]  # superseded (an exploit restarted the member meanwhile)
                continue
            if not self._batches_missing(trial, done) or now >= deadline:
                del self.waiting[trial_id]
                self.settling.settle(trial, done)
        for trial in list(running.values()):
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
        c, now = self.context, self.context.clock()
        if self.deadline is not None and now >= self.deadline and not c.stopping:
            limit = describe_duration(self.spec.timeout or 0.0)
            c.stop_all(f"the search reached its time limit (timeout: {limit})")
        trial_limit = self.spec.trial_timeout
        if trial_limit is None:
            return
        for trial in c.running.values():
            began = trial.attempt_began
            if began is not None and trial.stop_reason is None and now - began > trial_limit:
                trial.timed_out = f"ran longer than {describe_duration(trial_limit)} (trial_timeout)"
                c.request_stop(trial, trial.timed_out)

    # -- the end ------------------------------------------------------------------------
    def current_message(self) -> str | None:
        """The search's message as the handle shows it: the final one once ended, else the reason
        it is stopping, with what it must keep saying (stuck worker threads)."""
        return self.public.message if self.ended.is_set() else self._message(self.public.message)

    def _message(self, main: str | None) -> str | None:
        return "\n".join(part for part in (*self.notes, main) if part) or None  # short notes first

    def _final_state(self) -> tuple[ExperimentState, str | None]:
        state, message = self._outcome()
        return state, self._message(message)

    def _outcome(self) -> tuple[ExperimentState, str | None]:
        if self.context.stopping:
            return self.context.stopping, self.public.message
        self.writer.flush()
        trials = self.store.trials(self.experiment_id)
        failed = [t for t in trials if t.state == TrialState.FAILED.value]
        if failed and len(failed) == len(trials):
            first = min(failed, key=lambda t: t.trial_id)
            return (ExperimentState.FAILED,
                    f"every trial failed ({len(failed)}); the first error was:\n{first.error}")
        return ExperimentState.COMPLETED, None

    def _finish(self, state: ExperimentState, message: str | None) -> None:
        self.public.state = state.value
        self.public.message = message
        try:
            self._release_unfinished()
            self.writer.experiment(state=state.value, message=message)
            self.writer.flush()
            self.store.refuse_pending(self.experiment_id, f"search {self.name!r} ended ({state.value}) "
                                                          "before this command was carried out")
            self.context.checkpoints.sweep()
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
        c = self.context
        for trial in list(c.running.values()) + c.requeue:
            if trial.attempt_started:
                self.executor.stop(trial.trial_id, trial.attempt)
            self.executor.cancel(trial.trial_id, trial.attempt)
            self.writer.trial(trial.trial_id, state=TrialState.PENDING.value, retries=trial.retries)
        c.running.clear()
