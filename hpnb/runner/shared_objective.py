"""The objective and what it captures, put in the cluster once per search.

The driver pickles the objective with its large buffers (numpy arrays, frames) kept out of
band, so serializing it copies nothing but the small pickle around them, and scatters that
to one worker. Each trial's task names the copy by its key; a worker unpickles it once (from
its own store, or fetched from that worker at its first trial, or when it joined later or was
restarted) and keeps it until the search releases it. A copy lost with the worker that held it
is put in the cluster again from the objective the driver still holds.

Every objective is shared this way, whatever its size. The search's end releases its copies and
waits until the scheduler has forgotten them: a cluster whose workers close right after (hpnb's own
local one, or the user's) then loses no scattered data, which Dask's scheduler would log as an error.

Example:
    >>> from distributed import Client  # doctest: +SKIP
    >>> shared = SharedObjective(Client())  # doctest: +SKIP
    >>> key = shared.key_for(train)  # doctest: +SKIP
    >>> objective = objective_on_worker(key)  # in a task on a worker  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import cloudpickle

if TYPE_CHECKING:
    from distributed import Client, Future

log = logging.getLogger("hpnb")

#: objectives a worker process keeps unpickled (one per live search on it, usually).
WORKER_CACHE = 4
#: seconds the driver waits for a worker to put the copy on before its trials go without it.
SCATTER_TIMEOUT = 5.0
#: times a worker asks its peers for the copy, and seconds between asks, before it gives up.
FETCH_ATTEMPTS, FETCH_PAUSE = 3, 0.5
#: seconds the search's end waits for the scheduler to forget its copies, and between two looks.
RELEASE_TIMEOUT, RELEASE_PAUSE = 10.0, 0.02
#: the start of the key of each copy in the cluster.
KEY_PREFIX = "hpnb-objective"


#: the start of the reason an attempt is lost for when its worker could not fetch the objective.
SHARED_COPY_MISSING = "the worker could not fetch the search's copy of the objective"


class SharedCopyMissing(Exception):
    """A worker could not fetch the search's copy of the objective (every worker holding it was
    lost): the trial is run again once the driver has put it in the cluster anew."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(key, why)
        self.key, self.why = key, why

    def __str__(self) -> str:
        return f"{SHARED_COPY_MISSING} ({self.key}): {self.why}"


class _NoHolder(Exception):
    """The scheduler lists no worker holding the copy."""


def serialized(objective: Callable[..., Any]) -> tuple[bytes, list[memoryview]]:
    """``objective`` pickled by value, its large buffers out of band (views, not copies).

    Example:
        >>> header, buffers = serialized(len)
        >>> pickle.loads(header, buffers=buffers) is len
        True
    """
    buffers: list[pickle.PickleBuffer] = []
    # cloudpickle, always: Dask would pickle some callables (a functools.partial) by reference,
    # which a worker without the objective's module on its path cannot load
    header = cloudpickle.dumps(objective, protocol=5, buffer_callback=buffers.append)
    return header, [buffer.raw() for buffer in buffers]


def serialized_size(objective: Callable[..., Any]) -> int:
    """The bytes that travel for ``objective``, counted without copying its buffers.

    Example:
        >>> serialized_size(len) < 100
        True
    """
    header, buffers = serialized(objective)
    return len(header) + sum(buffer.nbytes for buffer in buffers)


class SharedObjective:
    """The driver's side: one scattered copy of the search's objective, put again when lost."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._future: Future | None = None
        self._of: Callable[..., Any] | None = None
        #: the key trials are given: the copy's, or a placeholder while it could not be put there
        self._key: str | None = None
        self._stale: set[str] = set()
        #: keys of copies this search put (or may have put) in the cluster and not released yet
        self._held: list[str] = []

    def key_for(self, objective: Callable[..., Any]) -> str:
        """The key of ``objective``'s copy in the cluster, scattered now if it is not there."""
        future = self._future
        if (self._of is not objective or self._key is None or self._key in self._stale
                or future is None or future.status != "finished"):
            self._replace(objective)
        assert self._key is not None
        return self._key

    @property
    def key(self) -> str | None:
        """The key of the copy in the cluster now (None before the first trial and after release)."""
        return self._key

    def lost(self, key: str) -> None:
        """A worker could not fetch ``key``: the next trial puts the copy in the cluster again."""
        self._stale.add(key)

    def _replace(self, objective: Callable[..., Any]) -> None:
        self.release()
        self._of = objective
        self._stale.clear()
        header, buffers = serialized(objective)
        key = f"{KEY_PREFIX}-{uuid.uuid4().hex}"
        # held before it is asked for: a scatter that timed out here may still land in the cluster
        self._held.append(key)
        try:
            self._future = self.client.scatter({key: (header, buffers)}, direct=True,
                                               timeout=SCATTER_TIMEOUT)[key]
        except Exception as exc:  # no worker now, or workers dying as it went: never the driver's end
            log.info("hpnb could not put the objective in the cluster yet: %s", exc)
            # its trials find no copy and are queued again; the next submit tries again
            self._key = f"{KEY_PREFIX}-missing-{uuid.uuid4().hex}"
            return
        # One worker holds it, and the others fetch it from that one at their first trial (no
        # replicas: Dask's memory manager drops the copies no task depends on, and a 2 GB replicate
        # then never ends). Each worker keeps the objective it unpickled until the search ends.
        self._key = str(self._future.key)

    def release(self) -> None:
        """Let the workers drop the copies and the objective they unpickled from them; return once
        the scheduler has forgotten the copies (or after :data:`RELEASE_TIMEOUT` seconds)."""
        held, self._held = self._held, []
        self._future, self._of, self._key = None, None, None
        if not held:
            return
        from distributed import Future

        try:
            self.client.cancel([Future(key, self.client) for key in held])
            _wait_forgotten(self.client, held)
        except Exception as exc:  # the client closing, or its scheduler gone: the copies go with it
            log.debug("hpnb could not confirm the release of the objective's copies: %s", exc)
        with contextlib.suppress(Exception):
            for key in held:
                self.client.run(forget, key, wait=False)


def _wait_forgotten(client: Client, keys: list[str]) -> None:
    """Wait until no worker holds the data of ``keys`` by the scheduler's account."""
    scheduler = client.scheduler
    assert scheduler is not None, "a client that never connected"
    deadline = time.monotonic() + RELEASE_TIMEOUT
    while any(client.sync(scheduler.who_has, keys=keys, callback_timeout=RELEASE_TIMEOUT).values()):
        if time.monotonic() > deadline:
            log.debug("hpnb: the scheduler still lists the objective's copies after %.0f s", RELEASE_TIMEOUT)
            return
        time.sleep(RELEASE_PAUSE)  # the cancel travels on the client's stream, this ask on its own


_cache: OrderedDict[str, Callable[..., Any]] = OrderedDict()
_cache_lock = threading.Lock()


def objective_on_worker(key: str) -> Callable[..., Any]:
    """The objective scattered as ``key``, unpickled once per worker process.

    Raises:
        SharedCopyMissing: no worker holds the copy any more.
    """
    with _cache_lock:  # one fetch per process, whichever of its threads asks first
        objective = _cache.get(key)
        if objective is None:
            header, buffers = _fetch(key)
            objective = cloudpickle.loads(header, buffers=buffers)
            while len(_cache) >= WORKER_CACHE:
                _cache.popitem(last=False)
            _cache[key] = objective
        with contextlib.suppress(KeyError):  # forgotten meanwhile: this trial still has it
            _cache.move_to_end(key)
        return objective


def _fetch(key: str) -> tuple[bytes, list[Any]]:
    from distributed import get_worker
    from distributed.utils import sync
    from distributed.utils_comm import gather_from_workers

    worker = get_worker()
    if key in worker.data:
        held: tuple[bytes, list[Any]] = worker.data[key]  # type: ignore[assignment]
        return held

    async def from_peers() -> Any:
        who_has = await worker.scheduler.who_has(keys=[key])
        if not who_has.get(key):
            raise _NoHolder("no worker holds it")
        data, *_ = await gather_from_workers(who_has, rpc=worker.rpc, who=worker.address)
        return data[key]

    for attempt in range(FETCH_ATTEMPTS):  # a holder that just died may still be listed
        try:
            fetched: tuple[bytes, list[Any]] = sync(worker.loop, from_peers)
            return fetched
        except Exception as exc:
            if attempt == FETCH_ATTEMPTS - 1 or isinstance(exc, _NoHolder):  # gone: asking again is no use
                raise SharedCopyMissing(key, f"{type(exc).__name__}: {exc}") from None
            time.sleep(FETCH_PAUSE)
    raise AssertionError("unreachable")


async def forget(key: str) -> None:
    """Drop the objective unpickled from ``key`` in this worker process (the search ended).

    Run in the worker's event loop: it takes no lock, since a trial thread fetching a copy
    holds the lock while it waits on that loop."""
    _cache.pop(key, None)
