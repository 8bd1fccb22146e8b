"""Read-only stores kept open for a long-lived server (the Lab's routes), one per request at a time.

Opening a store per request costs a file open for SQLite but a new connection for a server store
(a TCP handshake, authentication, the schema check): more than a route's own work on a big
search. A pool keeps up to :data:`KEPT` read-only stores per location and lends one per request;
a store whose server went away reconnects on its next use (see :mod:`hpnb.core.store.connection`),
waiting at most :data:`VIEW_RETRY_PERIOD` for it: a view's request then fails with the reason
(the Lab answers 503) rather than hang, and the failed store is not lent again.

Example:
    >>> import tempfile, pathlib
    >>> where = pathlib.Path(tempfile.mkdtemp()) / "hpnb.sqlite"
    >>> with borrowed_store(where) as store:
    ...     store.experiments()
    []
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from hpnb.core.store.location import StoreLocation
from hpnb.core.store.store import Store

#: read-only stores kept open per location (as many requests can read at once).
KEPT = 4
#: seconds a lent store waits for a server that went away (a quick restart is ridden out).
VIEW_RETRY_PERIOD = 5.0

_idle: dict[str, list[Store]] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def borrowed_store(name: str | os.PathLike[str] | None) -> Iterator[Store]:
    """A read-only store of ``name`` for the block, from the pool (or newly opened)."""
    key = StoreLocation.of(name).url
    with _lock:
        idle = _idle.setdefault(key, [])
        store = idle.pop() if idle else None
    if store is None:
        store = Store(name, readonly=True, retry_period=VIEW_RETRY_PERIOD)
    try:
        yield store
    except BaseException:
        store.close()  # its connection may be in any state: not lent again
        raise
    with _lock:
        if len(_idle[key]) < KEPT:
            _idle[key].append(store)
            return
    store.close()
