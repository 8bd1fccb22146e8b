"""Worker threads still held by trials hpnb gave up on, on clusters it may not restart.

A Python thread cannot be interrupted: a trial that ignores a stop (it never
reports, or it hangs) keeps its worker thread after its Dask task was
cancelled, and the worker runs nothing else on that thread. On the user's
cluster hpnb does not restart workers; it writes such slots off instead, for
every search on the same client, until the threads return.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any, ClassVar

from distributed import Client

log = logging.getLogger("hpnb")
#: seconds a thread written off stays so whatever its worker says (a cancel takes a moment to land)
SETTLE = 3.0


def _cancelled_still_running(dask_worker: Any) -> list[str]:
    """Run on a worker: keys of cancelled tasks whose thread is still busy."""
    return [str(ts.key) for ts in list(dask_worker.state.executing) if ts.state == "cancelled"]


class StuckThreads:
    """Abandoned attempts' threads by Dask task key, for one client."""

    _by_client: ClassVar[dict[str, StuckThreads]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, client: Client) -> None:
        self.client = client
        self._workers: dict[str, str] = {}  # task key -> worker address
        self._added: dict[str, float] = {}  # task key -> when it was written off (monotonic)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, client: Client) -> StuckThreads:
        """The registry shared by every search on ``client``."""
        with cls._registry_lock:
            found = cls._by_client.get(client.id)
            if found is None:
                found = cls._by_client[client.id] = cls(client)
            return found

    def add(self, key: str, worker: str) -> None:
        with self._lock:
            self._workers[key] = worker
            self._added[key] = time.monotonic()

    def discard(self, key: str) -> None:
        with self._lock:
            self._workers.pop(key, None)

    def refresh(self) -> None:
        """Forget threads that have returned (or whose worker is gone)."""
        with self._lock:
            workers = sorted(set(self._workers.values()))
        if not workers:
            return
        try:
            busy = self.client.run(_cancelled_still_running, workers=workers, on_error="return")
        except Exception as exc:  # the scheduler is unreachable: keep what we know
            log.debug("hpnb could not ask workers about stuck threads: %s", exc)
            return
        still = {key for keys in busy.values() if isinstance(keys, list) for key in keys}
        recent = time.monotonic() - SETTLE  # its worker may not have marked the task cancelled yet
        with self._lock:
            self._workers = {k: w for k, w in self._workers.items()
                             if k in still or self._added.get(k, 0.0) > recent}
            self._added = {k: at for k, at in self._added.items() if k in self._workers}

    def per_worker(self) -> Counter[str]:
        """How many written-off threads each worker holds."""
        with self._lock:
            return Counter(self._workers.values())
