"""What the scheduler says about a cluster's workers, heard once per client.

Two of the scheduler's event topics tell a search's executor about its workers:

- ``all``: a worker left the cluster (``remove-worker``), naming the tasks it was running and the
  scattered data lost with it. On a cluster whose scheduler re-runs the tasks of a dead worker
  (``allowed-failures`` above 0, Dask's default) the trials' futures say nothing of it, and the
  re-run starts from step 0 without the trial's checkpoint: the executor hears it here instead.
- ``worker-restart-memory``: a nanny restarted its worker for exceeding its memory limit.

A topic has one handler per client, so one :class:`ClusterWatch` per client is shared by every
search on it; each executor adds a listener for removed workers. The watch listens to ``all`` only
while some search does: a client still subscribed to it when it closes has the scheduler log an
error as it sends the client's own removal to it.

Example:
    >>> from distributed import Client  # doctest: +SKIP
    >>> watch = ClusterWatch.of(Client())  # doctest: +SKIP
    >>> watch.listen(lambda removal: print(removal.worker, removal.running))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from distributed import Client

log = logging.getLogger("hpnb")

#: the topic Dask's nannies report memory-limit restarts on.
MEMORY_RESTART_TOPIC = "worker-restart-memory"
#: the scheduler's topic for its own actions, worker removals among them.
SCHEDULER_TOPIC = "all"


@dataclass(frozen=True)
class WorkerRemoval:
    """A worker that left the cluster: the task keys it was running, and the scattered keys lost
    with it (no other worker held them)."""

    worker: str
    running: frozenset[str]
    lost_data: frozenset[str]


Listener = Callable[[WorkerRemoval], None]


class ClusterWatch:
    """Worker removals and memory-limit restarts on one client's cluster."""

    _by_client: ClassVar[dict[str, ClusterWatch]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, client: Client) -> None:
        #: the nanny's report of each worker restarted for its memory, by worker address
        self.memory_reports: dict[str, dict[str, Any]] = {}
        self._client = weakref.ref(client)
        self._listeners: dict[int, Listener] = {}
        self._guard = threading.Lock()

    @classmethod
    def of(cls, client: Client) -> ClusterWatch:
        """The watch of ``client``'s cluster, subscribed to memory reports at the first call."""
        with cls._lock:
            watch = cls._by_client.get(client.id)
            if watch is None:
                watch = cls._by_client[client.id] = cls(client)
                client.subscribe_topic(MEMORY_RESTART_TOPIC, watch._on_memory_report)
            return watch

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` for each worker removed from now on (in the client's event loop: it
        must not wait); returns what stops it. Call neither from that loop."""
        key = id(listener)
        with self._guard:
            first = not self._listeners
            self._listeners[key] = listener
            client = self._client()
            if first and client is not None:
                client.subscribe_topic(SCHEDULER_TOPIC, self._on_scheduler_event)

        def stop() -> None:
            with self._guard:
                self._listeners.pop(key, None)
                client = self._client()
                if not self._listeners and client is not None:
                    with contextlib.suppress(Exception):  # the client closed already
                        client.unsubscribe_topic(SCHEDULER_TOPIC)
        return stop

    def memory_reason(self, worker: str) -> str:
        """Why a trial on ``worker``, restarted for its memory, was lost."""
        rss = self.memory_reports.get(worker, {}).get("rss", 0)
        return (f"memory limit: the worker {worker} used {rss / 2**20:.0f} MiB, more than its memory "
                "limit (resources.limits.memory), and Dask restarted it")

    def _on_memory_report(self, event: tuple[float, dict[str, Any]]) -> None:
        report = event[1]
        self.memory_reports[str(report.get("worker"))] = dict(report)

    def _on_scheduler_event(self, event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        if not isinstance(message, dict) or message.get("action") != "remove-worker":
            return
        removal = WorkerRemoval(str(message.get("worker")),
                                frozenset(map(str, message.get("processing-tasks") or ())),
                                frozenset(map(str, message.get("lost-scattered-tasks") or ())))
        with self._guard:
            listeners = list(self._listeners.values())
        for listener in listeners:
            try:
                listener(removal)
            except Exception:  # one search's listener failing must not deafen the others
                log.exception("hpnb: a listener of removed workers failed")
