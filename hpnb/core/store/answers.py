"""Whether a store's server has answered this process, and saying when it stops and answers again.

A server that has never answered this process (a wrong port, a stopped server, an unknown host)
is one error at once: a wait would only hide a typo. A server that answered and then went away (a
restart, a network cut) is waited for, as a driver in the middle of a search must, by every store
of this process that reaches it (the driver's, the dashboard's, a ``hpnb.load`` meanwhile): one
record per server address, so the wait is said once, when it starts, every :data:`REPEAT` seconds
while it lasts, and when the server answers again, as warnings of the ``hpnb.store`` logger (a
child of the ``hpnb`` logger the driver writes its log with; the CLI prints them on stderr).

Example:
    >>> from hpnb.core.store.location import StoreLocation
    >>> answers = ServerAnswers.of(StoreLocation.of("postgresql://ana@db.example:5432/team"))
    >>> answers.ever
    False
    >>> answers.answered()
    >>> ServerAnswers.of(StoreLocation.of("postgresql://bo@db.example:5432/other")).ever
    True
"""

from __future__ import annotations

import logging
import threading
import time
from typing import ClassVar

from hpnb.core.store.location import StoreLocation

log = logging.getLogger("hpnb.store")

#: seconds between two reminders that a store is still being waited for.
REPEAT = 30.0


class ServerAnswers:
    """When a store's server last answered, and the wait for it, said once and not per attempt."""

    _known: ClassVar[dict[str, ServerAnswers]] = {}
    _known_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def of(cls, where: StoreLocation) -> ServerAnswers:
        """The one record of the server at ``where`` in this process."""
        with cls._known_lock:
            found = cls._known.get(where.address)
            if found is None:
                found = cls._known[where.address] = cls(where)
            return found

    def __init__(self, where: StoreLocation) -> None:
        self.where = where
        #: wall-clock time of the last answer; None while the server never answered
        self.last: float | None = None
        self._waiting_since: float | None = None  # monotonic
        self._said_at = 0.0
        self._lock = threading.Lock()  # the stores of several threads share this record

    @property
    def ever(self) -> bool:
        """Whether the server has answered at least once (then a lost connection is waited for)."""
        return self.last is not None

    def answered(self) -> None:
        """The server answered just now; a wait that was said is said to be over."""
        with self._lock:
            self.last = time.time()
            waited = None if self._waiting_since is None else time.monotonic() - self._waiting_since
            self._waiting_since = None
        if waited is not None:
            log.warning("the store at %s answers again (after %.1f s)", self.where.address, waited)

    def waiting(self, reason: str) -> None:
        """An attempt failed and will be retried: say so when the wait starts, then every REPEAT s."""
        now = time.monotonic()
        with self._lock:
            if self._waiting_since is None:
                self._waiting_since = now
            elif now - self._said_at < REPEAT:
                return
            self._said_at = now
        since = time.strftime("%H:%M:%S", time.localtime(self.last)) if self.last else "its start"
        log.warning("the store at %s has not answered since %s (%s), retrying", self.where.address, since,
                    reason)
