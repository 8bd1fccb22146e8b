"""What differs between the store's two databases, in one place per dialect.

Every query of the store is written once, in the SQL both databases speak: ``?`` placeholders,
``INSERT ... ON CONFLICT``, ``RETURNING id``, ``rowid`` for the order results were stored in.
A :class:`Dialect` holds the rest: how a connection is opened, how a write transaction starts
and what it locks (SQLite's ``BEGIN IMMEDIATE``: one writer at a time; on PostgreSQL writers of
different searches go on at once, a search's results and the schema each taking an advisory
lock), how many rows are inserted at once, how the schema is created from the one list of
migrations and where its version is recorded, and which errors mean "busy, retry", "connection
lost, reconnect", "damaged", "not allowed" or a broken constraint.

The two are :mod:`hpnb.core.store.sqlite_dialect` and :mod:`hpnb.core.store.postgres`; a store
picks its own (:meth:`~hpnb.core.store.base.StoreBase.__init__`).

Example:
    >>> insert_sql("events", [("kind", "text"), ("time", "real")], skip_duplicates=False)
    'INSERT INTO events (kind, time) VALUES (?, ?)'
"""

from __future__ import annotations

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

    def open(self, where: StoreLocation, readonly: bool, busy_timeout: float,
             first_contact: bool = False) -> Connection:
        """A new connection; ``first_contact``: its server never answered this store (wait less)."""

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
