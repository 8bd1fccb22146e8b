"""Trials on a Dask cluster.

Metrics travel worker -> driver as batched ``Worker.log_event`` messages on a
topic the driver subscribes to; stop requests travel driver -> worker as a
Dask ``Event`` per attempt, checked by the trial at most every 0.2 s.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable
from typing import Any

from distributed import Client, Event, Future, get_client, get_worker

from hpnb.runner.executor import AttemptDone, Executor, ResultBatch
from hpnb.runner.objective import TrialTask, run_trial
from hpnb.runner.trial_context import TrialChannel


def _stop_event_name(topic: str, trial_id: int, attempt: int) -> str:
    return f"{topic}-stop-{trial_id}-{attempt}"


def _run_on_worker(objective: Callable[..., Any], task: TrialTask, topic: str) -> dict[str, Any]:
    """The Dask task: run one attempt, streaming its reports to ``topic``."""
    worker = get_worker()
    stop_event: list[Event] = []

    def should_stop() -> bool:
        if not stop_event:
            name = _stop_event_name(topic, task.trial_id, task.attempt)
            stop_event.append(Event(name, client=get_client()))
        return bool(stop_event[0].is_set())

    channel = TrialChannel(send=lambda batch: worker.log_event(topic, batch), should_stop=should_stop)
    outcome = run_trial(objective, task, channel)
    outcome["worker"] = worker.address
    return outcome


class DaskExecutor(Executor):
    """Runs trials as Dask tasks on ``client``'s cluster.

    Example:
        >>> from distributed import Client, LocalCluster  # doctest: +SKIP
        >>> executor = DaskExecutor(Client(LocalCluster(n_workers=2)))  # doctest: +SKIP
    """

    def __init__(self, client: Client, topic: str | None = None) -> None:
        super().__init__()
        self.client = client
        self.topic = topic or f"hpnb-{uuid.uuid4().hex[:12]}"
        self._futures: dict[tuple[int, int], Future] = {}
        self._lock = threading.Lock()
        client.subscribe_topic(self.topic, self._on_event)

    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        batch = event[1]
        self.sink(ResultBatch(int(batch["trial"]), int(batch["attempt"]), batch["rows"]))

    def capacity(self) -> int:
        info = self.client.scheduler_info(n_workers=-1)
        workers = info.get("workers", {})
        return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))

    def submit(self, objective: Callable[..., Any], task: TrialTask) -> None:
        key = f"{self.topic}-trial-{task.trial_id}-{task.attempt}"
        future = self.client.submit(_run_on_worker, objective, task, self.topic, key=key, pure=False)
        with self._lock:
            self._futures[(task.trial_id, task.attempt)] = future
        future.add_done_callback(lambda f: self._on_done(task, f))

    def _on_done(self, task: TrialTask, future: Future) -> None:
        with self._lock:
            self._futures.pop((task.trial_id, task.attempt), None)
        if future.status == "finished":
            try:
                outcome = future.result()
            except Exception as exc:  # the result could not be fetched: the worker died since
                self.sink(AttemptDone(task.trial_id, task.attempt, None, lost=True, reason=_reason(exc)))
                return
            self.sink(AttemptDone(task.trial_id, task.attempt, outcome, worker=outcome.get("worker")))
            return
        reason = "cancelled" if future.status == "cancelled" else _reason(future.exception())
        self.sink(AttemptDone(task.trial_id, task.attempt, None, lost=True, reason=reason))

    def stop(self, trial_id: int, attempt: int) -> None:
        Event(_stop_event_name(self.topic, trial_id, attempt), client=self.client).set()

    def cancel(self, trial_id: int, attempt: int) -> None:
        with self._lock:
            future = self._futures.get((trial_id, attempt))
        if future is not None:
            future.cancel()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the client may already be closed
            self.client.unsubscribe_topic(self.topic)


def _reason(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown"
    name = type(exc).__name__
    if name == "KilledWorker":
        return f"the worker running this trial died ({exc})"
    return f"{name}: {exc}"
