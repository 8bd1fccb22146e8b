"""Trials on a Dask cluster: the driver's side of the tasks of :mod:`hpnb.runner.dask_task`.

The driver hears an attempt's start, reports and outcome as messages on the search's topic; the
task's future only tells it about attempts that never finished (a dead worker, a cancellation).
Stops, verdicts and the word that a checkpoint is recorded go back through Dask events and
variables (one scheduler round trip each way).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from distributed import Client, Event, Future, Variable

from hpnb.core.spec.trial_resources import TrialResources, trial_slots, unfit_reason
from hpnb.runner.cluster_watch import ClusterWatch, WorkerRemoval
from hpnb.runner.dask_task import COPY_MISSING, event_name, recorded_name, run_on_worker, verdict_name
from hpnb.runner.executor import AttemptDone, AttemptOutput, AttemptStarted, Executor, ResultBatch
from hpnb.runner.gangs import GangRuns
from hpnb.runner.graces import Graces
from hpnb.runner.output_transport import LOG_IN_RESULT, output_event, rescue_output
from hpnb.runner.shared_objective import SharedCopyMissing, SharedObjective
from hpnb.runner.stuck_threads import StuckThreads
from hpnb.runner.worker.objective import TrialTask

log = logging.getLogger("hpnb")

#: seconds the driver waits for an outcome message before fetching the task's result itself.
OUTCOME_GRACE = 5.0
#: seconds to wait for the nanny's memory report after a worker died.
MEMORY_REPORT_GRACE = 1.0
class DaskExecutor(Executor):
    """Runs trials as Dask tasks on ``client``'s cluster.

    ``restart_worker`` (for clusters hpnb started) restarts a worker whose trial thread
    does not return after a stop; without it, that thread's slot is written off until
    the thread returns.

    Example:
        >>> from distributed import Client, LocalCluster  # doctest: +SKIP
        >>> executor = DaskExecutor(Client(LocalCluster(n_workers=2)))  # doctest: +SKIP
    """

    def __init__(self, client: Client, topic: str | None = None,
                 restart_worker: Callable[[str], None] | None = None,
                 per_trial: TrialResources | None = None, trial_timeout: float | None = None) -> None:
        super().__init__()
        self.client = client
        #: the search's ``trial_timeout``: also how long a rank waits in a collective for its peers
        self.trial_timeout = trial_timeout
        #: what each trial holds on its worker (Dask resources); empty: one worker thread
        self.per_trial = per_trial if per_trial is not None else TrialResources()
        self._restart_worker = restart_worker
        self._stuck = StuckThreads.of(client)
        self._allowed_workers: list[str] | None = None
        self.topic = topic or f"hpnb-{uuid.uuid4().hex[:12]}"
        self._futures: dict[tuple[int, int], Future] = {}
        self._workers: dict[tuple[int, int], str] = {}
        self._settled: set[tuple[int, int]] = set()
        #: outcomes sent without their long log, by attempt, until the log is fetched
        self._long_logs: dict[tuple[int, int], dict[str, Any]] = {}
        self._experiment = ""
        self._lock = threading.Lock()
        self._shared = SharedObjective(client)
        self._watch = ClusterWatch.of(client)
        self._stop_watching = self._watch.listen(self._on_worker_removed)
        #: attempts known lost, each told to the driver once (by its future or its worker's removal)
        self._lost: set[tuple[int, int]] = set()
        #: lost attempts whose end waits for a possible memory report (see :meth:`_lose`)
        self._losing: set[tuple[int, int]] = set()
        self.graces = Graces()
        #: the attempts of a trial that spans several workers (None: every trial is one task)
        self._gangs = GangRuns(self) if self.per_trial.is_gang else None
        client.subscribe_topic(self.topic, self._on_event)

    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        key = (int(message["trial"]), int(message["attempt"]))
        if message.get("rank"):  # a rank beyond 0 of a gang: rank 0 speaks for the trial
            if self._gangs is not None:
                self._gangs.on_message(message)
        elif "started" in message:
            with self._lock:
                self._workers[key] = message["worker"]
            if self._gangs is not None:
                self._gangs.mark(key, 0, "running")
            self.sink(AttemptStarted(*key, message["worker"], float(message["started"])))
        elif COPY_MISSING in message:
            with self._lock:
                self._settled.add(key)
            self.copy_missing(key, message)
        elif "outcome" in message:
            outcome = message["outcome"]
            with self._lock:
                self._settled.add(key)
                if outcome.get(LOG_IN_RESULT):  # the whole outcome is handed on with its log, in _on_done
                    self._long_logs[key] = outcome
            self._stuck.discard(self.task_key(*key))  # a thread written off has returned
            if not outcome.get(LOG_IN_RESULT):
                self._emit_outcome(*key, outcome)
        else:
            self.sink(ResultBatch(*key, message["rows"], tuple(message.get("unanswered", ())),
                                  tuple(message.get("events", ())), message.get("recorded")))

    def capacity(self) -> int:
        """Worker threads, less those held by abandoned trials (see :class:`StuckThreads`); with
        per-trial resources, the trials the workers' resources hold at once (:attr:`limited_by`
        then names the resource that bounds them)."""
        info = self.client.scheduler_info(n_workers=-1)
        threads = {address: int(w.get("nthreads", 1)) for address, w in info.get("workers", {}).items()}
        self._stuck.refresh()
        stuck = self._stuck.per_worker()
        free = {address: max(0, n - stuck.get(address, 0)) for address, n in threads.items()}
        self._allowed_workers = [a for a, n in free.items() if n > 0] if stuck else None
        if self.per_trial:
            advertised = {address: {k: float(v) for k, v in (w.get("resources") or {}).items()}
                          for address, w in info.get("workers", {}).items()}
            self.slots, self.limited_by = trial_slots(self.per_trial, free, advertised)
            self.unfit = unfit_reason(self.per_trial, advertised)  # workers that joined after the start
        else:
            self.slots = sum(free.values())
        if self._gangs is not None:  # slots are counted in ranks: as many trials as the fewest ranks fill
            self.slots //= self._gangs.min_ranks()
            self.waiting_for = self._gangs.waiting_for()
            self._gangs.place()  # workers that joined since may fit a waiting trial
        # A lost attempt still counts among the driver's running trials until its end is told:
        # its slot is counted with it, so the live trials keep every slot the workers have.
        with self._lock:
            losing = len(self._losing)
        return max(1, self.slots) + losing

    def task_key(self, trial_id: int, attempt: int) -> str:
        return f"{self.topic}-trial-{trial_id}-{attempt}"

    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        self.submit_many(objective, [task])

    def submit_many(self, objective: Callable[..., Any], tasks: Sequence[TrialTask]) -> None:
        """Submit ``tasks`` in one update of the scheduler's graph: on hundreds of slots one
        ``submit`` each kept the scheduler's thread busy with an update per trial."""
        if not tasks:
            return
        objective_key = self._shared.key_for(objective)
        self._experiment = tasks[-1].experiment
        if self._gangs is not None:  # each rank pinned to a worker of its own, all at once (see gangs)
            self._gangs.submit(objective_key, tasks)
            return
        # keep new trials off threads that abandoned trials still hold
        placement: dict[str, Any] = {"workers": self._allowed_workers} if self._allowed_workers else {}
        if self.per_trial:
            placement["resources"] = dict(self.per_trial.amounts)
        n = len(tasks)
        futures = self.client.map(run_on_worker, [objective_key] * n, list(tasks), [self.topic] * n,
                                  key=[self.task_key(t.trial_id, t.attempt) for t in tasks], pure=False,
                                  **placement)
        for task, future in zip(tasks, futures, strict=True):
            self.watch_attempt(task, future)

    def watch_attempt(self, task: TrialTask, future: Future) -> None:
        """Follow the task of ``task``'s attempt (rank 0's, for a gang) until it ends."""
        with self._lock:
            self._futures[(task.trial_id, task.attempt)] = future
        future.add_done_callback(partial(self._on_done, task))

    def is_lost(self, key: tuple[int, int]) -> bool:
        """Whether the attempt was told lost already (its end is not told again)."""
        with self._lock:
            return key in self._lost

    def _on_done(self, task: TrialTask, future: Future) -> None:
        key = (task.trial_id, task.attempt)
        with self._lock:
            self._futures.pop(key, None)
        if future.status == "finished":
            if key in self._settled:
                self._on_finished(task, future, True)
            else:  # its outcome message may be on its way (or, not msgpack-able, never sent)
                self.graces.add(lambda: key in self._settled, OUTCOME_GRACE,
                                 partial(self._on_finished, task, future))
            return
        if key in self._long_logs:  # it returned, and was cancelled since: its outcome stands
            self._emit_outcome(*key, self._long_logs[key])
        elif key in self._lost:  # told already, when its worker left the cluster
            pass
        elif future.status == "cancelled":
            self.sink(AttemptDone(task.trial_id, task.attempt, None, reason="cancelled"))
        else:
            self._on_lost(task, future)
        self._forget(key)

    def _on_finished(self, task: TrialTask, future: Future, outcome_sent: bool) -> None:
        """A returned attempt: its outcome was told by its message, else is fetched."""
        key = (task.trial_id, task.attempt)
        if not outcome_sent:
            self._fetch_outcome(task, future)
        elif key in self._long_logs:
            self._fetch_outcome(task, future, sent=self._long_logs[key])
        self._forget(key)

    def _forget(self, key: tuple[int, int]) -> None:
        with self._lock:
            self._settled.discard(key)
            self._long_logs.pop(key, None)
            self._workers.pop(key, None)
        if self._gangs is not None:  # its other ranks end too, and their slots are free again
            threading.Thread(target=self._gangs.end, args=(key,), daemon=True, name="hpnb-end-ranks").start()

    def _fetch_outcome(self, task: TrialTask, future: Future, sent: dict[str, Any] | None = None) -> None:
        """The task's result as the attempt's outcome; ``sent``: the outcome message that left its
        long log out, which stands (without the log) if the result is gone."""
        try:
            outcome = future.result()
        except Exception as exc:  # the worker holding the result died since
            if sent is not None:
                self._emit_outcome(task.trial_id, task.attempt, sent)
            else:
                self.sink(AttemptDone(task.trial_id, task.attempt, None, reason=describe_loss(exc)))
            return
        if COPY_MISSING in outcome:  # its message was lost
            self.copy_missing((task.trial_id, task.attempt), outcome)
            return
        self._emit_outcome(task.trial_id, task.attempt, outcome)

    def _emit_outcome(self, trial_id: int, attempt: int, outcome: dict[str, Any]) -> None:
        """What the attempt printed (when the outcome holds it), then its end (a gang's, once its
        other ranks told theirs)."""
        if self._gangs is not None and self._gangs.is_gang((trial_id, attempt)):
            self._gangs.outcome((trial_id, attempt), outcome, partial(self._tell_outcome, trial_id, attempt))
        else:
            self._tell_outcome(trial_id, attempt, outcome)

    def _tell_outcome(self, trial_id: int, attempt: int, outcome: dict[str, Any]) -> None:
        printed = output_event(trial_id, attempt, outcome)
        if printed is not None:
            self.sink(printed)
        self.sink(attempt_done(trial_id, attempt, outcome))

    def _on_lost(self, task: TrialTask, future: Future) -> None:
        """An attempt whose future ended without its result: its worker died, or it found no copy
        of the objective."""
        key = (task.trial_id, task.attempt)
        exc = future.exception()
        if isinstance(exc, SharedCopyMissing):
            self._shared.lost(exc.key)
            self.lose(key, None, str(exc))
        else:
            self.lose(key, self._workers.get(key), describe_loss(exc))

    def copy_missing(self, key: tuple[int, int], told: dict[str, Any]) -> None:
        """An attempt whose worker found no copy of the objective: lost, and the next trials put
        the copy in the cluster again."""
        missing = SharedCopyMissing(str(told[COPY_MISSING]), str(told.get("why", "")))
        self._shared.lost(missing.key)
        self.lose(key, None, str(missing))

    def _on_worker_removed(self, removal: WorkerRemoval) -> None:
        """A worker left the cluster: the attempts it ran are lost now, whatever its scheduler does
        with their tasks (one that re-runs them would start them over without their checkpoint)."""
        copy = self._shared.key
        if copy is not None and copy in removal.lost_data:
            self._shared.lost(copy)  # the next trials put it in the cluster again
        with self._lock:
            lost = [(key, future) for key, future in self._futures.items()
                    if self.task_key(*key) in removal.running]
        for key, _ in lost:
            if self._gangs is not None:
                self._gangs.mark(key, 0, "lost")
            self.lose(key, removal.worker, f"the worker running this trial died (worker {removal.worker} "
                                           "left the cluster)")
        for key in self._gangs.on_worker_removed(removal.running) if self._gangs is not None else ():
            self.lose(key, removal.worker, f"a rank of this trial was lost (worker {removal.worker} left the "
                                           "cluster): every rank of the attempt is ended")
            with self._lock:
                future = self._futures.get(key)
            if future is not None:
                lost.append((key, future))
        if lost:  # this runs in the client's event loop, which the calls to the scheduler need free
            threading.Thread(target=self._withdraw, args=(lost,), daemon=True, name="hpnb-withdraw").start()

    def _withdraw(self, lost: list[tuple[tuple[int, int], Future]]) -> None:
        for key, future in lost:
            with contextlib.suppress(Exception):  # the client closing
                self.stop(*key)  # a re-run the scheduler started already ends at its first report
            with contextlib.suppress(Exception):
                future.cancel()

    def lose(self, key: tuple[int, int], worker: str | None, reason: str) -> None:
        """Tell the driver, once, that an attempt was lost and why: when its worker's nanny may yet
        report a memory-limit restart, once the report came or its grace passed (in :class:`Graces`:
        the callback thread, which every future's callback shares, never waits)."""
        with self._lock:
            if key in self._lost:
                return
            self._lost.add(key)
            if worker is not None:
                self._losing.add(key)
        if worker is None:
            self.sink(AttemptDone(*key, None, reason=reason))
            return

        def tell(reported: bool) -> None:
            with self._lock:
                self._losing.discard(key)
            said = self._watch.memory_reason(worker) if reported else reason
            self.sink(AttemptDone(*key, None, reason=said))

        self.graces.add(lambda: worker in self._watch.memory_reports, MEMORY_REPORT_GRACE, tell)

    def stop(self, trial_id: int, attempt: int) -> None:
        Event(event_name(self.topic, "stop", trial_id, attempt), client=self.client).set()

    def verdict(self, trial_id: int, attempt: int, step: int, verdict: str) -> None:
        Variable(verdict_name(self.topic, trial_id, attempt, step), client=self.client).set(verdict)
        if self._gangs is not None:  # every rank waits at the same step for its own copy
            self._gangs.verdict((trial_id, attempt), step, verdict)

    def recorded(self, trial_id: int, attempt: int, seq: int) -> None:
        Variable(recorded_name(self.topic, trial_id, attempt, seq), client=self.client).set(True)

    def cancel(self, trial_id: int, attempt: int) -> None:
        if self._gangs is not None and self._gangs.cancel_waiting((trial_id, attempt)):
            return
        with self._lock:
            future = self._futures.get((trial_id, attempt))
        if future is not None:
            # A worker may have begun the task before its start message reached the driver, and
            # cancelling the future does not end the thread running it: the stop flag does, at
            # its next report, before it runs on unseen until its worker closes.
            self.stop(trial_id, attempt)
            future.cancel()

    def abandon(self, trial_id: int, attempt: int) -> str | None:
        with self._lock:
            worker = self._workers.get((trial_id, attempt))
        if worker is not None:  # what it printed so far, read before its worker may restart
            output = rescue_output(self.client, self._experiment, trial_id, attempt, worker)
            self.sink(AttemptOutput(trial_id, attempt, output))
        self.cancel(trial_id, attempt)
        if worker is None:
            return None
        what = self.write_off(self.task_key(trial_id, attempt), worker)
        return f"trial {trial_id} did not return after it was asked to stop: {what}"

    def write_off(self, task_key: str, worker: str) -> str:
        """A task whose thread did not return when asked: its worker is restarted (on a cluster hpnb
        started), else its slot is written off until the thread returns; what was done, in words."""
        if self._restart_worker is not None:
            threading.Thread(target=self._restart, args=(worker,), daemon=True,
                             name="hpnb-restart-worker").start()
            return f"its worker {worker} is restarted"
        self._stuck.add(task_key, worker)
        self._allowed_workers = None  # recomputed at the next capacity check
        return (f"worker {worker} holds its stuck thread, and that slot is not used until the thread "
                "returns (restart the worker to free it)")

    def stuck_threads(self) -> dict[str, int]:
        """Threads written off by worker (abandoned tasks that have not returned)."""
        self._stuck.refresh()
        return dict(self._stuck.per_worker())

    def _restart(self, worker: str) -> None:
        assert self._restart_worker is not None
        try:
            self._restart_worker(worker)
        except Exception as exc:  # the worker may be gone already
            log.warning("hpnb could not restart worker %s: %s", worker, exc)

    def stuck_workers(self) -> list[str]:
        """Workers holding a thread of an abandoned attempt that has not returned."""
        return sorted(self._stuck.per_worker())

    def close(self) -> None:
        self._stop_watching()
        self._shared.release()
        with contextlib.suppress(Exception):  # the client may already be closed
            self.client.unsubscribe_topic(self.topic)


def attempt_done(trial_id: int, attempt: int, outcome: dict[str, Any]) -> AttemptDone:
    """The event for an attempt's outcome."""
    return AttemptDone(trial_id, attempt, outcome, worker=outcome.get("worker"))


def describe_loss(exc: BaseException | None) -> str:
    """Why an attempt never returned, in words."""
    if exc is None:
        return "unknown"
    name = type(exc).__name__
    if name == "KilledWorker":
        return f"the worker running this trial died ({exc})"
    return f"{name}: {exc}"
