"""Trials on a Dask cluster.

Everything a trial says travels worker -> driver as ``Worker.log_event``
messages on one topic the driver subscribes to, in order: a start message
(which worker, when), batches of reports, and the outcome. Stop requests
travel driver -> worker as a Dask ``Event`` per attempt, checked by the trial
at most every 0.2 s. A trial at a decision point waits on a Dask ``Variable`` per
(attempt, step) that the driver sets to its verdict (one scheduler round trip
each way), and deletes it once read. The task's future only tells the driver
about attempts that never finished (a dead worker, a cancellation).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from distributed import Client, Event, Future, Variable, get_client, get_worker

from hpnb.core.spec.trial_resources import TrialResources, trial_slots, unfit_reason
from hpnb.runner.cluster_watch import ClusterWatch, WorkerRemoval
from hpnb.runner.executor import AttemptDone, AttemptOutput, AttemptStarted, Executor, ResultBatch
from hpnb.runner.graces import Graces
from hpnb.runner.output_transport import LOG_IN_RESULT, outcome_message, output_event, rescue_output
from hpnb.runner.shared_objective import SharedCopyMissing, SharedObjective, objective_on_worker
from hpnb.runner.stuck_threads import StuckThreads
from hpnb.runner.worker.objective import TrialTask, run_trial
from hpnb.runner.worker.trial_context import TrialChannel

log = logging.getLogger("hpnb")

#: seconds the driver waits for an outcome message before fetching the task's result itself.
OUTCOME_GRACE = 5.0
#: seconds to wait for the nanny's memory report after a worker died.
MEMORY_REPORT_GRACE = 1.0
#: the field of a message (and of a task's result) that says its worker found no copy of the objective.
COPY_MISSING = "copy_missing"


def _event_name(topic: str, kind: str, trial_id: int, attempt: int) -> str:
    return f"{topic}-{kind}-{trial_id}-{attempt}"


def _verdict_name(topic: str, trial_id: int, attempt: int, step: int) -> str:
    return f"{_event_name(topic, 'verdict', trial_id, attempt)}-{step}"


def _recorded_name(topic: str, trial_id: int, attempt: int, seq: int) -> str:
    return f"{_event_name(topic, 'recorded', trial_id, attempt)}-{seq}"


def _await_verdict(topic: str, task: TrialTask, step: int, timeout: float) -> str | None:
    """The driver's verdict on ``step`` of ``task``'s attempt; None when none came within ``timeout``."""
    return _await_variable(_verdict_name(topic, task.trial_id, task.attempt, step), timeout)


def _await_variable(name: str, timeout: float) -> str | None:
    """The value the driver sets ``name`` to, deleted once read; None when none came in ``timeout``."""
    variable = Variable(name, client=get_client())
    try:
        return str(variable.get(timeout=timeout))
    except Exception:  # TimeoutError, or the scheduler went away: the trial goes on by itself
        return None
    finally:
        with contextlib.suppress(Exception):
            variable.delete()


def _run_on_worker(objective_key: str, task: TrialTask, topic: str) -> dict[str, Any]:
    """The Dask task: run one attempt, streaming its start, reports and outcome to ``topic``."""
    worker = get_worker()
    key = {"trial": task.trial_id, "attempt": task.attempt}
    try:
        objective = objective_on_worker(objective_key)
    except SharedCopyMissing as missing:
        # told and returned, not raised: Dask logs a task's exception as an error with its traceback,
        # and this attempt only waits for the copy the driver puts in the cluster again
        told = {COPY_MISSING: missing.key, "why": missing.why}
        worker.log_event(topic, {**key, **told})
        return told
    worker.log_event(topic, {**key, "started": time.time(), "worker": worker.address})
    stop_event: list[Event] = []

    def should_stop() -> bool:
        if not stop_event:
            name = _event_name(topic, "stop", task.trial_id, task.attempt)
            stop_event.append(Event(name, client=get_client()))
        return bool(stop_event[0].is_set())

    def await_recorded(seq: int, timeout: float) -> bool:
        name = _recorded_name(topic, task.trial_id, task.attempt, seq)
        return _await_variable(name, timeout) is not None

    channel = TrialChannel(send=lambda batch: worker.log_event(topic, batch), should_stop=should_stop,
                           await_verdict=lambda step, timeout: _await_verdict(topic, task, step, timeout),
                           await_recorded=await_recorded)
    outcome = run_trial(objective, task, channel)
    outcome["worker"] = worker.address
    with contextlib.suppress(TypeError):  # not msgpack-able: the driver fetches the result instead
        worker.log_event(topic, {**key, "outcome": outcome_message(outcome)})
    return outcome


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
                 per_trial: TrialResources | None = None) -> None:
        super().__init__()
        self.client = client
        #: what each trial holds on its worker (Dask resources); empty: one worker thread
        self.per_trial = per_trial or TrialResources()
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
        self._graces = Graces()
        client.subscribe_topic(self.topic, self._on_event)

    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        key = (int(message["trial"]), int(message["attempt"]))
        if "started" in message:
            with self._lock:
                self._workers[key] = message["worker"]
            self.sink(AttemptStarted(*key, message["worker"], float(message["started"])))
        elif COPY_MISSING in message:
            with self._lock:
                self._settled.add(key)
            self._copy_missing(key, message)
        elif "outcome" in message:
            outcome = message["outcome"]
            with self._lock:
                self._settled.add(key)
                if outcome.get(LOG_IN_RESULT):  # the whole outcome is handed on with its log, in _on_done
                    self._long_logs[key] = outcome
            self._stuck.discard(self._key(*key))  # a thread written off has returned
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
        # A lost attempt still counts among the driver's running trials until its end is told:
        # its slot is counted with it, so the live trials keep every slot the workers have.
        with self._lock:
            losing = len(self._losing)
        return max(1, self.slots) + losing

    def _key(self, trial_id: int, attempt: int) -> str:
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
        # keep new trials off threads that abandoned trials still hold
        placement: dict[str, Any] = {"workers": self._allowed_workers} if self._allowed_workers else {}
        if self.per_trial:
            placement["resources"] = dict(self.per_trial.amounts)
        n = len(tasks)
        futures = self.client.map(_run_on_worker, [objective_key] * n, list(tasks), [self.topic] * n,
                                  key=[self._key(t.trial_id, t.attempt) for t in tasks], pure=False,
                                  **placement)
        for task, future in zip(tasks, futures, strict=True):
            with self._lock:
                self._futures[(task.trial_id, task.attempt)] = future
            future.add_done_callback(partial(self._on_done, task))

    def _on_done(self, task: TrialTask, future: Future) -> None:
        key = (task.trial_id, task.attempt)
        with self._lock:
            self._futures.pop(key, None)
        if future.status == "finished":
            if key in self._settled:
                self._on_finished(task, future, True)
            else:  # its outcome message may be on its way (or, not msgpack-able, never sent)
                self._graces.add(lambda: key in self._settled, OUTCOME_GRACE,
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
            self._copy_missing((task.trial_id, task.attempt), outcome)
            return
        self._emit_outcome(task.trial_id, task.attempt, outcome)

    def _emit_outcome(self, trial_id: int, attempt: int, outcome: dict[str, Any]) -> None:
        """What the attempt printed (when the outcome holds it), then its end."""
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
            self._lose(key, None, str(exc))
        else:
            self._lose(key, self._workers.get(key), describe_loss(exc))

    def _copy_missing(self, key: tuple[int, int], told: dict[str, Any]) -> None:
        """An attempt whose worker found no copy of the objective: lost, and the next trials put
        the copy in the cluster again."""
        missing = SharedCopyMissing(str(told[COPY_MISSING]), str(told.get("why", "")))
        self._shared.lost(missing.key)
        self._lose(key, None, str(missing))

    def _on_worker_removed(self, removal: WorkerRemoval) -> None:
        """A worker left the cluster: the attempts it ran are lost now, whatever its scheduler does
        with their tasks (one that re-runs them would start them over without their checkpoint)."""
        copy = self._shared.key
        if copy is not None and copy in removal.lost_data:
            self._shared.lost(copy)  # the next trials put it in the cluster again
        with self._lock:
            lost = [(key, future) for key, future in self._futures.items()
                    if self._key(*key) in removal.running]
        for key, _ in lost:
            self._lose(key, removal.worker, f"the worker running this trial died (worker {removal.worker} "
                                            "left the cluster)")
        if lost:  # this runs in the client's event loop, which the calls to the scheduler need free
            threading.Thread(target=self._withdraw, args=(lost,), daemon=True, name="hpnb-withdraw").start()

    def _withdraw(self, lost: list[tuple[tuple[int, int], Future]]) -> None:
        for key, future in lost:
            with contextlib.suppress(Exception):  # the client closing
                self.stop(*key)  # a re-run the scheduler started already ends at its first report
            with contextlib.suppress(Exception):
                future.cancel()

    def _lose(self, key: tuple[int, int], worker: str | None, reason: str) -> None:
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

        self._graces.add(lambda: worker in self._watch.memory_reports, MEMORY_REPORT_GRACE, tell)

    def stop(self, trial_id: int, attempt: int) -> None:
        Event(_event_name(self.topic, "stop", trial_id, attempt), client=self.client).set()

    def verdict(self, trial_id: int, attempt: int, step: int, verdict: str) -> None:
        Variable(_verdict_name(self.topic, trial_id, attempt, step), client=self.client).set(verdict)

    def recorded(self, trial_id: int, attempt: int, seq: int) -> None:
        Variable(_recorded_name(self.topic, trial_id, attempt, seq), client=self.client).set(True)

    def cancel(self, trial_id: int, attempt: int) -> None:
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
        if self._restart_worker is not None:
            threading.Thread(target=self._restart, args=(worker,), daemon=True,
                             name="hpnb-restart-worker").start()
            return (f"trial {trial_id} did not return after it was asked to stop: its worker {worker} "
                    "is restarted")
        self._stuck.add(self._key(trial_id, attempt), worker)
        self._allowed_workers = None  # recomputed at the next capacity check
        return (f"trial {trial_id} did not return after it was asked to stop: worker {worker} holds its "
                "stuck thread, and that slot is not used until the thread returns (restart the worker "
                "to free it)")

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
