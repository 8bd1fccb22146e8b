"""One driver per search on a server store: a session-level advisory lock on the server.

A SQLite store's drivers lock a file beside it (:mod:`hpnb.runner.lease`), which holds for the
processes of one machine. A server store is shared by machines, so its lock lives on the server:
``pg_try_advisory_lock`` on a connection of the driver's own, held as long as that connection
is open. A driver that dies (its process killed, its machine gone) drops the connection and the
lock with it; the server notices a dead peer by its TCP keepalives.
"""

from __future__ import annotations

import contextlib

from hpnb.core.errors import HpnbError
from hpnb.core.store.dialect import Connection
from hpnb.core.store.store import Store


class ServerSearchLock:
    """The lock a running driver holds on its search in a server store."""

    def __init__(self, conn: Connection | None) -> None:
        self._conn = conn

    @classmethod
    def take(cls, store: Store, experiment_id: int, label: str | None = None) -> ServerSearchLock:
        """Lock search ``experiment_id`` of ``store`` for this driver.

        Raises:
            HpnbError: another driver holds it (the message names it, as the search records it).
        """
        from hpnb.core.store.postgres import LEASE_CLASS, connect

        conn = connect(store.location)
        try:
            row = conn.execute("SELECT pg_try_advisory_lock(?, ?)",
                               (LEASE_CLASS & 0x7FFFFFFF, int(experiment_id))).fetchone()
        except BaseException:
            conn.close()
            raise
        if row is None or not row[0]:
            conn.close()
            other = store.experiment_with_id(experiment_id).driver
            raise HpnbError(f"search {label or experiment_id} is already driven by "
                            f"{other or 'another driver'}")
        return cls(conn)

    def release(self) -> None:
        """Let another driver take the search (closing the connection drops the lock)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    @property
    def held(self) -> bool:
        return self._conn is not None
