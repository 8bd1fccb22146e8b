"""Opening, closing and the locking plumbing shared by every :class:`~hpnb.core.store.Store` method.

Thread safety: a :class:`Store` may be shared between threads (the driver
writes from a background thread while the notebook reads); one lock
serialises its use of its single connection. Each public write method is one
transaction. Processes coordinate through SQLite's own locks (see
:mod:`hpnb.core.store.connection`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from hpnb.core.closing import ClosedOnExit
from hpnb.core.store import schema
from hpnb.core.store.connection import (
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_RETRY_PERIOD,
    default_store_path,
    in_transaction,
    open_readonly,
    open_writable,
    reporting_damage,
    retry_when_busy,
)
from hpnb.core.store.records import column_value
from hpnb.core.store.store_errors import (
    ReadOnlyStore,
    StoreDamaged,
    StoreError,
    StoreVersionError,
    UnknownExperiment,
    UnknownTrial,
)

T = TypeVar("T")
_S = TypeVar("_S", bound="StoreBase")


class _Clear:
    def __repr__(self) -> str:
        return "CLEAR"


#: pass to :meth:`Store.update_experiment` to set a field to NULL (``None`` there means "unchanged").
CLEAR: Any = _Clear()


class StoreBase(ClosedOnExit):
    """The connection, its lock and the read/write helpers of a store (see :class:`Store`).

    Args:
        path: the file; default :func:`default_store_path`. A writable store creates it
            (and its directory) on opening.
        readonly: open with ``mode=ro``: every write raises :class:`ReadOnlyStore` except
            :meth:`request_stop`. A file that does not exist yet reads as an empty store.
        busy_timeout: seconds SQLite waits for another process's lock before the store retries.

    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        readonly: bool = False,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_store_path()
        self.readonly = readonly
        self._busy_timeout = busy_timeout
        self._retry_period = DEFAULT_RETRY_PERIOD
        self._lock = threading.RLock()
        self._batch_depth = 0
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._schema_ready = False
        if not readonly:
            self._conn = open_writable(self.path, busy_timeout)
            self._conn.row_factory = sqlite3.Row
            try:
                self._retry(lambda: in_transaction(self._conn_or_fail(), self._migrate))
            except BaseException:
                self.close()
                raise
            self._schema_ready = True

    # -- life cycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            self._closed = True

    def __repr__(self) -> str:
        mode = "readonly" if self.readonly else "writable"
        return f"Store({str(self.path)!r}, {mode})"

    # -- connection plumbing ----------------------------------------------------------------

    def _migrate(self, conn: sqlite3.Connection) -> None:
        schema.migrate(conn, self.path)

    def _retry(self, action: Callable[[], T]) -> T:
        return retry_when_busy(action, self._retry_period, self.path)

    def _conn_or_fail(self) -> sqlite3.Connection:
        if self._closed or self._conn is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._conn

    def _reader(self) -> sqlite3.Connection | None:
        """The connection to read with, or None while a read-only store's file is missing or empty."""
        if self._closed:
            raise StoreError(f"the store {self.path} is closed")
        if self._conn is None:
            if not self.path.exists():
                return None
            self._conn = open_readonly(self.path, self._busy_timeout)
            self._conn.row_factory = sqlite3.Row
        if not self._schema_ready:
            conn = self._conn
            version = self._retry(lambda: schema.schema_version(conn))
            if version == 0:
                return None  # a writer is creating the file right now
            schema.check_not_newer(version, self.path)
            if version < schema.SCHEMA_VERSION:
                self._upgrade_from_readonly()
            self._schema_ready = True
        return self._conn

    def _upgrade_from_readonly(self) -> None:
        # The schema is additive, so upgrading an older file changes no data; a read-only
        # opener (the sidebar) would otherwise fail until the next search writes to the file.
        try:
            writer = open_writable(self.path, self._busy_timeout)
        except StoreDamaged:
            raise
        except StoreError as err:
            raise StoreVersionError(
                f"the store {self.path} has an older schema that must be upgraded, "
                f"but it cannot be written: {err}"
            ) from err
        try:
            self._retry(lambda: in_transaction(writer, self._migrate))
        except sqlite3.Error as err:
            raise StoreVersionError(f"the store {self.path} could not be upgraded: {err}") from err
        finally:
            writer.close()

    def _read(self, work: Callable[[sqlite3.Connection], T], empty: T) -> T:
        with self._lock:
            conn = self._reader()
            if conn is None:
                return empty
            return self._retry(lambda: work(conn))

    def _write(self, work: Callable[[sqlite3.Connection], T], action: str) -> T:
        if self.readonly:
            raise ReadOnlyStore(f"cannot {action}: the store {self.path} was opened read-only")
        with self._lock:
            conn = self._conn_or_fail()
            if self._batch_depth:
                with reporting_damage(self.path):
                    return work(conn)  # part of the surrounding batch's transaction
            return self._retry(lambda: in_transaction(conn, work))

    def _write_always(self, work: Callable[[sqlite3.Connection], T], action: str) -> T:
        """Like :meth:`_write`, on a read-only store too, through a writable connection of its own
        (commands and stop requests come from viewers: the sidebar, the CLI, another kernel)."""
        if not self.readonly:
            return self._write(work, action)
        if not self.path.exists():
            raise StoreError(f"cannot {action}: the store {self.path} does not exist")
        try:
            writer = open_writable(self.path, self._busy_timeout)
        except StoreError as err:
            raise ReadOnlyStore(f"cannot {action}: {err}") from err
        try:
            return self._retry(lambda: in_transaction(writer, work))
        finally:
            writer.close()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Make the writes inside the block one transaction (one commit instead of many).

        Other threads' calls on this store wait until the block ends.

        Example:
            >>> import tempfile, pathlib
            >>> from hpnb.core.store import Store
            >>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite")
            >>> exp = store.create_experiment("b", {}, metric="loss", mode="min", strategy="random",
            ...                               budget=2, parallel=1)
            >>> with store.batch():
            ...     store.add_trial(exp.id, 0, {"x": 1})
            ...     store.add_trial(exp.id, 1, {"x": 2})
            >>> len(store.trials(exp.id))
            2
        """
        if self.readonly:
            raise ReadOnlyStore(f"cannot write a batch: the store {self.path} was opened read-only")
        with self._lock:
            conn = self._conn_or_fail()
            if self._batch_depth:
                self._batch_depth += 1
                try:
                    yield
                finally:
                    self._batch_depth -= 1
                return
            self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
            self._batch_depth = 1
            try:
                yield
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            else:
                self._retry(lambda: conn.execute("COMMIT"))
            finally:
                self._batch_depth = 0

    def _experiment_names(self, conn: sqlite3.Connection) -> list[str]:
        return [row[0] for row in conn.execute("SELECT name FROM experiments ORDER BY name")]

    def _unknown(self, name: str) -> UnknownExperiment:
        nothing: list[str] = []
        names = self._read(self._experiment_names, nothing)
        return UnknownExperiment(name, names, self.path)

    def _update(
        self,
        table: str,
        columns: dict[str, tuple[str, str]],
        changes: dict[str, Any],
        where: str,
        key: tuple[Any, ...],
        extra: str | None = None,
    ) -> None:
        # Column names come only from the whitelist ``columns``; values go through placeholders.
        assignments, values = [], []
        for field, value in changes.items():
            column, kind = columns[field]
            assignments.append(f"{column} = ?")
            values.append(None if value is CLEAR else column_value(kind, value, field))
        if extra is not None:
            assignments.append(f"{extra} = ?")
            values.append(time.time())
        if not assignments:
            return
        sql = f"UPDATE {table} SET {', '.join(assignments)} WHERE {where}"

        def work(conn: sqlite3.Connection) -> None:
            if conn.execute(sql, (*values, *key)).rowcount == 0:
                raise self._missing(table, key)

        self._write(work, f"update {table}")

    def _missing(self, table: str, key: tuple[Any, ...]) -> StoreError:
        if table == "trials":
            return UnknownTrial(f"no trial {key[1]} in experiment id {key[0]} of {self.path}")
        return StoreError(f"no experiment with id {key[0]} in {self.path}")
