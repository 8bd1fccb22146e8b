"""Transactions, and retrying them while a store is busy or its server away.

A store file's writers wait up to ``busy_timeout`` for its lock inside SQLite (see
:mod:`hpnb.core.store.sqlite_dialect`); on top of that a whole transaction is retried with
back-off while SQLite still reports the file as locked, so "database is locked" does not
reach the user.

A PostgreSQL store is retried the same way (see :mod:`hpnb.core.store.postgres`), and a lost
connection to its server is opened again and the transaction retried, for as long as a lock
would be: a server restarted in the middle of a search costs a wait, not a write. That is for a
server that has answered the store before; one that never did is one error at once, and a wait
is said when it starts and when it ends (see :mod:`hpnb.core.store.answers`).

Every statement the store runs goes through :func:`retrying`, which is
also where SQLite's "file is not a database" and "database disk image is
malformed" become one :class:`~hpnb.core.store.store_errors.StoreDamaged` naming the
file and what to do; damage can surface at opening or only later, when a query
reads a corrupt page.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from hpnb.core.store.answers import ServerAnswers
from hpnb.core.store.dialect import Connection, Dialect
from hpnb.core.store.location import StoreLocation, default_store_path
from hpnb.core.store.store_errors import StoreBusy, StoreDamaged, StoreError, StoreUnreachable

T = TypeVar("T")

#: seconds SQLite itself waits for a lock before reporting the file busy.
DEFAULT_BUSY_TIMEOUT = 30.0
#: seconds a transaction is retried (after SQLite gave up waiting) before StoreBusy is raised.
DEFAULT_RETRY_PERIOD = 120.0

__all__ = ["default_store_path", "in_transaction", "retrying", "rollback"]


def _damaged(where: StoreLocation, err: Exception) -> StoreError:
    if where.is_server:
        return StoreError(f"the store {where} reports damaged data ({err}); ask its administrator")
    return StoreDamaged(where.path, err)


def retrying(action: Callable[[], T], dialect: Dialect, period: float, where: StoreLocation,
             reconnect: Callable[[], None] | None = None, answers: ServerAnswers | None = None) -> T:
    """Run ``action`` until it does not fail with a lock error or a lost connection, for at most
    ``period`` seconds.

    A lost connection (a server restarted, a network cut) calls ``reconnect`` (which drops the
    connection, so that the next attempt opens a new one) and is retried like a lock; the
    server not answering the new connection yet is retried too, and the wait is said through
    ``answers``. A server that never answered (``answers.ever`` false) is not waited for: its
    first error is raised at once. A damaged file or database raises at once.
    """
    deadline = time.monotonic() + period
    pause = 0.005
    while True:
        try:
            result = action()
        except StoreUnreachable as err:
            if not _waits_for_server(reconnect, answers) or time.monotonic() + pause > deadline:
                raise
            problem: Exception = err
            lost, why = True, err.reason
        except dialect.error as err:
            if dialect.is_damaged(err):
                raise _damaged(where, err) from err
            lost, why = dialect.is_lost(err) and _waits_for_server(reconnect, answers), "connection lost"
            if not lost and not dialect.is_busy(err):
                raise
            if lost and reconnect is not None:
                reconnect()
            problem = err
        else:
            if answers is not None:
                answers.answered()
            return result
        if time.monotonic() + pause > deadline:
            raise _gave_up(where, period, problem, lost) from problem
        if lost and answers is not None:
            answers.waiting(why)
        time.sleep(pause * (1.0 + random.random()))
        pause = min(pause * 2.0, 0.5)


def _waits_for_server(reconnect: Callable[[], None] | None, answers: ServerAnswers | None) -> bool:
    """Whether a lost or refused connection is retried: it can be opened again, and the server
    answered once (a server that never did is more likely a wrong address than a restart)."""
    return reconnect is not None and (answers is None or answers.ever)


def _gave_up(where: StoreLocation, period: float, err: Exception, lost: bool) -> StoreError:
    if lost:
        return StoreUnreachable(f"the store {where} could not be reached for {period:.0f} s "
                                f"({type(err).__name__}); is its server running?")
    return StoreBusy(f"the store {where} stayed locked by another process for {period:.0f} s; "
                     "is a process stuck while writing to it?")


def in_transaction(conn: Connection, dialect: Dialect, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one write transaction: all of it is committed, or none of it."""
    try:
        dialect.begin(conn)  # may fail half-way on PostgreSQL: BEGIN done, the lock not taken
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn, dialect)
        raise
    return result


def rollback(conn: Connection, dialect: Dialect) -> None:
    """Roll back an open transaction; a connection lost meanwhile has nothing left to roll back."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except dialect.error as err:
        if not dialect.is_lost(err):
            raise

