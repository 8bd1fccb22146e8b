"""What differs between the store's two databases, in one place per dialect.

Every query of the store is written once, in the SQL both databases speak: ``?`` placeholders,
``INSERT ... ON CONFLICT``, ``RETURNING id``, ``rowid`` for the order results were stored in.
A :class:`Dialect` holds the rest: how a connection is opened, how a write transaction starts
and what it locks (SQLite's ``BEGIN IMMEDIATE``: one writer at a time; on PostgreSQL writers of
different searches go on at once, a search's results and the schema each taking an advisory
lock), how many rows are inserted at once, how the schema is created from the one list of
migrations and where its version is recorded, and which errors mean "busy, retry", "connection
lost, reconnect", "damaged", "not allowed" or a broken constraint.

Example:
    >>> from hpnb.core.store.location import StoreLocation
    >>> dialect_for(StoreLocation.of("/tmp/x.sqlite")).name
    'sqlite'
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from hpnb.core.store.location import StoreLocation


class Cursor(Protocol):
    """What the store uses of a cursor (sqlite3's and psycopg's both have it)."""

    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the store uses of a connection; rows are indexed by position."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...

    def close(self) -> None: ...


class Dialect(Protocol):
    """One database's ways (see the module's docstring)."""

    @property
    def name(self) -> str: ...

    @property
    def error(self) -> type[Exception]:
        """The database driver's base error class."""

    @property
    def integrity_error(self) -> type[Exception]:
        """The driver's error class for a broken constraint."""

    def open(self, where: StoreLocation, readonly: bool, busy_timeout: float) -> Connection: ...

    def begin(self, conn: Connection) -> None: ...

    def lock_store(self, conn: Connection) -> None:
        """Inside a write transaction: no other writer of the whole store until it ends."""

    def lock_search(self, conn: Connection, experiment_id: int) -> None:
        """Inside a write transaction: no other writer of this search's results until it ends."""

    def schema_version(self, conn: Connection) -> int: ...

    def record_version(self, conn: Connection, version: int) -> None: ...

    def ddl(self, statement: str) -> list[str]: ...

    def is_busy(self, err: Exception) -> bool: ...

    def is_lost(self, err: Exception) -> bool: ...

    def is_damaged(self, err: Exception) -> bool: ...

    def is_denied(self, err: Exception) -> bool: ...

    def violation(self, err: Exception) -> str: ...

    def insert_rows(self, conn: Connection, table: str, columns: Sequence[tuple[str, str]],
                    rows: Sequence[Sequence[Any]], skip_duplicates: bool) -> int: ...


def insert_sql(table: str, columns: Sequence[tuple[str, str]], skip_duplicates: bool) -> str:
    """``INSERT`` of one row into ``table`` (columns and kinds are the store's constants)."""
    names = ", ".join(name for name, _ in columns)
    conflict = " ON CONFLICT DO NOTHING" if skip_duplicates else ""
    return f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))}){conflict}"


class SQLiteDialect:
    """The embedded store: one file, WAL mode, SQLite's own write lock."""

    name = "sqlite"
    error = sqlite3.Error
    integrity_error = sqlite3.IntegrityError

    def open(self, where: StoreLocation, readonly: bool, busy_timeout: float) -> Connection:
        from hpnb.core.store.connection import open_readonly, open_writable

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
        text = str(err).lower()
        return isinstance(err, sqlite3.OperationalError) and ("locked" in text or "busy" in text)

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


def dialect_for(where: StoreLocation) -> Dialect:
    """The dialect of the store at ``where`` (psycopg is imported only for a server store)."""
    if where.is_server:
        from hpnb.core.store.postgres import PostgresDialect

        return PostgresDialect()
    return SQLiteDialect()
