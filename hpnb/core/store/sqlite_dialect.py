"""The SQLite dialect of the store: one file in WAL mode, opened writable or read-only.

Several processes may use one store file at once (two searches, the line magic, the JupyterLab
sidebar). Readers never wait for writers (WAL); writers take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to ``busy_timeout`` for it inside SQLite, and a whole transaction
is then retried while the file stays locked (:func:`~hpnb.core.store.connection.retrying`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hpnb.core.store.connection import DEFAULT_RETRY_PERIOD, retrying
from hpnb.core.store.dialect import Connection, insert_sql
from hpnb.core.store.location import StoreLocation
from hpnb.core.store.store_errors import StoreError


class SQLiteDialect:
    """The embedded store: one file, WAL mode, SQLite's own write lock."""

    name = "sqlite"
    error = sqlite3.Error
    integrity_error = sqlite3.IntegrityError

    def open(self, where: StoreLocation, readonly: bool, busy_timeout: float,
             first_contact: bool = False) -> Connection:
        return (open_readonly if readonly else open_writable)(where.path, busy_timeout)

    def begin(self, conn: Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")  # the file's one writer: every lock below is held already

    def lock_store(self, conn: Connection) -> None:
        pass

    def lock_search(self, conn: Connection, experiment_id: int) -> None:
        pass

    def schema_version(self, conn: Connection) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def record_version(self, conn: Connection, version: int) -> None:
        conn.execute(f"PRAGMA user_version = {int(version)}")  # PRAGMA takes no placeholders

    def ddl(self, statement: str) -> list[str]:
        return [statement]

    def is_busy(self, err: Exception) -> bool:
        # SQLITE_BUSY also names a COMMIT refused while a statement of the connection is still in
        # progress ("cannot commit transaction - SQL statements in progress"): retried whole
        text = str(err).lower()
        name = getattr(err, "sqlite_errorname", "")
        return isinstance(err, sqlite3.OperationalError) and (
            "locked" in text or "busy" in text or name in ("SQLITE_BUSY", "SQLITE_LOCKED"))

    def is_lost(self, err: Exception) -> bool:
        return False  # a file does not go away between statements

    def is_damaged(self, err: Exception) -> bool:
        code = getattr(err, "sqlite_errorcode", None)  # Python >= 3.11
        if code is not None:
            return code & 0xFF in (26, 11)  # NOTADB, CORRUPT
        text = str(err).lower()
        return "not a database" in text or "malformed" in text

    def is_denied(self, err: Exception) -> bool:
        text = str(err).lower()
        return "readonly" in text or "read-only" in text or "unable to open" in text

    def violation(self, err: Exception) -> str:
        text = str(err)
        return "foreign key" if "FOREIGN KEY" in text else "unique" if "UNIQUE" in text else ""

    def insert_rows(self, conn: Connection, table: str, columns: Sequence[tuple[str, str]],
                    rows: Sequence[Sequence[Any]], skip_duplicates: bool) -> int:
        """Insert many rows (``columns``: name and kind, ``int``, ``real`` or ``text``); how many were new."""
        return int(conn.executemany(insert_sql(table, columns, skip_duplicates), rows).rowcount)


def open_writable(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A connection that may write; creates the file and its directory if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as err:
        raise StoreError(f"cannot open the store {path} for writing: {err}") from err
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        _wal(conn, path)
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


def _wal(conn: sqlite3.Connection, path: Path) -> None:
    retrying(lambda: conn.execute("PRAGMA journal_mode = WAL"), SQLiteDialect(), DEFAULT_RETRY_PERIOD,
             StoreLocation.of(path))
