"""Where the store lives, how its SQLite connections are opened, and retrying when it is busy.

Several processes may use one store file at once (two searches, the line
magic, the JupyterLab sidebar). The file is in WAL mode, so readers never
wait for writers; writers take the write lock up front (``BEGIN IMMEDIATE``),
wait up to ``busy_timeout`` for it inside SQLite, and on top of that a whole
transaction is retried with back-off while SQLite still reports the file as
locked, so "database is locked" does not reach the user.

Every statement the store runs goes through :func:`retry_when_busy`, which is
also where SQLite's "file is not a database" and "database disk image is
malformed" become one :class:`~hpnb.core.store.store_errors.StoreDamaged` naming the
file and what to do; damage can surface at opening or only later, when a query
reads a corrupt page.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from hpnb.core.store.store_errors import StoreBusy, StoreDamaged, StoreError

T = TypeVar("T")

#: seconds SQLite itself waits for a lock before reporting the file busy.
DEFAULT_BUSY_TIMEOUT = 30.0
#: seconds a transaction is retried (after SQLite gave up waiting) before StoreBusy is raised.
DEFAULT_RETRY_PERIOD = 120.0
#: SQLite's result codes for a file that is not a database (NOTADB) or has a corrupt page (CORRUPT).
_DAMAGE_CODES = (26, 11)


def default_store_path() -> Path:
    """The store every notebook shares: ``$HPNB_HOME/hpnb.sqlite`` (``HPNB_HOME`` defaults to ``~/.hpnb``).

    Example:
        >>> default_store_path().name
        'hpnb.sqlite'
    """
    home = os.environ.get("HPNB_HOME") or "~/.hpnb"
    return Path(home).expanduser() / "hpnb.sqlite"


def open_writable(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A connection that may write; creates the file and its directory if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as err:
        raise StoreError(f"cannot open the store {path} for writing: {err}") from err
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        retry_when_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"), DEFAULT_RETRY_PERIOD, path)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as err:
        conn.close()
        raise StoreError(f"cannot open the store {path} for writing: {err}") from err
    except BaseException:
        conn.close()
        raise
    return conn


def open_readonly(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A connection that cannot write (SQLite refuses any write through it)."""
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(
            uri, uri=True, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    except sqlite3.Error as err:
        raise StoreError(f"cannot open the store {path} for reading: {err}") from err
    return conn


def is_busy(err: sqlite3.Error) -> bool:
    """Whether ``err`` means another connection holds a lock (worth retrying)."""
    text = str(err).lower()
    return isinstance(err, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def is_damaged(err: sqlite3.Error) -> bool:
    """Whether ``err`` means the file is not an SQLite database or a page of it is corrupt."""
    code = getattr(err, "sqlite_errorcode", None)  # Python >= 3.11
    if code is not None:
        return code & 0xFF in _DAMAGE_CODES
    text = str(err).lower()
    return "not a database" in text or "malformed" in text


@contextlib.contextmanager
def reporting_damage(path: Path) -> Iterator[None]:
    """Turn an SQLite error meaning the file is damaged into :class:`StoreDamaged` naming ``path``."""
    try:
        yield
    except sqlite3.Error as err:
        if is_damaged(err):
            raise StoreDamaged(path, err) from err
        raise


def retry_when_busy(action: Callable[[], T], period: float, path: Path) -> T:
    """Run ``action`` until it does not fail with a lock error, for at most ``period`` seconds.

    A damaged file raises :class:`StoreDamaged` at once (see :func:`reporting_damage`).
    """
    with reporting_damage(path):
        return _retry_busy(action, period, path)


def _retry_busy(action: Callable[[], T], period: float, path: Path) -> T:
    deadline = time.monotonic() + period
    pause = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as err:
            if not is_busy(err):
                raise
            if time.monotonic() + pause > deadline:
                raise StoreBusy(
                    f"the store {path} stayed locked by another process for {period:.0f} s; "
                    "is a process stuck while writing to it?"
                ) from err
        time.sleep(pause * (1.0 + random.random()))
        pause = min(pause * 2.0, 0.5)


def in_transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``work`` in one write transaction: all of it is committed, or none of it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result
