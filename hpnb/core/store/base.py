"""Opening, closing and the locking plumbing shared by every :class:`~hpnb.core.store.Store` method.

Thread safety: a :class:`Store` may be shared between threads (the driver
writes from a background thread while the notebook reads); one lock
serialises its use of its single connection. Each public write method is one
transaction. Processes coordinate through the database's own locks (see
:mod:`hpnb.core.store.connection` and :mod:`hpnb.core.store.dialect`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from hpnb.core.closing import ClosedOnExit
from hpnb.core.store import schema
from hpnb.core.store.answers import ServerAnswers
from hpnb.core.store.connection import (
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_RETRY_PERIOD,
    in_transaction,
    retrying,
    rollback,
)
from hpnb.core.store.dialect import Connection, Dialect
from hpnb.core.store.location import StoreLocation
from hpnb.core.store.records import column_value
from hpnb.core.store.sqlite_dialect import SQLiteDialect
from hpnb.core.store.store_errors import (
    ReadOnlyStore,
    StoreDamaged,
    StoreError,
    StoreUnreachable,
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
        path: the file, or a ``postgresql://user@host:5432/db`` URL (see
            :mod:`hpnb.core.store.location`); default ``HPNB_STORE``, else
            ``$HPNB_HOME/hpnb.sqlite``. A writable store creates its file (and directory), or
            its tables on a server, on opening.
        readonly: every write raises :class:`ReadOnlyStore` except commands (:meth:`send_command`),
            which use a writable connection of their own. A file that does not exist yet, or a
            database without the store's tables, reads as an empty store.
        busy_timeout: seconds the database waits for another process's lock before the store retries.
        retry_period: seconds a statement is retried while the store is locked, or while a server
            that answered this store before does not answer (a server that never answered is one
            :class:`StoreUnreachable` at once).

    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        readonly: bool = False,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        retry_period: float = DEFAULT_RETRY_PERIOD,
    ) -> None:
        self.location = StoreLocation.of(path)
        #: the SQLite file; for a server store, a name in its local folder (see StoreLocation.path)
        self.path = self.location.path
        self._dialect = dialect_for(self.location)
        self.readonly = readonly
        self._busy_timeout = busy_timeout
        self._retry_period = retry_period
        self._answers = ServerAnswers.of(self.location)
        self._lock = threading.RLock()
        self._batch_depth = 0
        self._conn: Connection | None = None
        self._closed = False
        self._schema_ready = False
        if not readonly:
            self._conn = self._open(readonly=False)
            try:
                self._retry(lambda: self._transaction(self._conn_or_fail(), self._migrate))
            except self._dialect.error as err:
                self.close()
                if self._dialect.is_denied(err):
                    raise StoreError(f"cannot create or upgrade the store's tables in {self.location}: "
                                     f"{_first_line(err)}; a role that may create tables must open it "
                                     "once, or use readonly") from None
                raise
            except BaseException:
                self.close()
                raise
            self._schema_ready = True

    @property
    def url(self) -> str:
        """What opens this same store again (``Store(store.url)``): the file, or the server's URL.

        A server URL may carry a password: pass it on, never show it (show :attr:`location`).
        """
        return self.location.url

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
        return f"Store({self.location.display!r}, {mode})"

    # -- connection plumbing ----------------------------------------------------------------

    def _open(self, readonly: bool) -> Connection:
        conn = self._dialect.open(self.location, readonly, self._busy_timeout,
                                  first_contact=not self._answers.ever)
        self._answers.answered()
        return conn

    def _migrate(self, conn: Connection) -> None:
        schema.migrate(conn, self._dialect, self.location)

    def _transaction(self, conn: Connection, work: Callable[[Connection], T]) -> T:
        return in_transaction(conn, self._dialect, work)

    def _retry(self, action: Callable[[], T]) -> T:
        return retrying(action, self._dialect, self._retry_period, self.location, self._drop_connection,
                        self._answers)

    def _drop_connection(self) -> None:
        """Forget a connection its server dropped; the next use opens a new one."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _conn_or_fail(self) -> Connection:
        if self._closed:
            raise StoreError(f"the store {self.location} is closed")
        if self._conn is None:  # dropped when its server went away: connect again
            self._conn = self._open(readonly=self.readonly)
        return self._conn

    def _reader(self) -> Connection | None:
        """The connection to read with, or None while a read-only store's file (or schema) is missing."""
        if self._closed:
            raise StoreError(f"the store {self.location} is closed")
        if self._conn is None:
            if not self.location.is_server and not self.path.exists():
                return None
            self._conn = self._open(readonly=self.readonly)
        if not self._schema_ready:
            conn = self._conn
            version = self._dialect.schema_version(conn)
            if version == 0:
                return None  # a writer is creating the schema right now
            schema.check_not_newer(version, self.location)
            if version < schema.SCHEMA_VERSION:
                self._upgrade_from_readonly()
            self._schema_ready = True
        return self._conn

    def _upgrade_from_readonly(self) -> None:
        # The schema is additive, so upgrading an older store changes no data; a read-only
        # opener (the sidebar) would otherwise fail until the next search writes to it.
        try:
            writer = self._open(readonly=False)
        except StoreDamaged:
            raise
        except StoreError as err:
            raise StoreVersionError(
                f"the store {self.location} has an older schema that must be upgraded, "
                f"but it cannot be written: {err}"
            ) from err
        try:
            retrying(lambda: self._transaction(writer, self._migrate), self._dialect, self._retry_period,
                     self.location)
        except self._dialect.error as err:
            raise StoreVersionError(f"the store {self.location} could not be upgraded: "
                                    f"{_first_line(err)}") from err
        finally:
            writer.close()

    def _read(self, work: Callable[[Connection], T], empty: T) -> T:
        def attempt() -> T:
            conn = self._reader()
            return empty if conn is None else work(conn)

        with self._lock:
            return self._retry(attempt)

    def _write(self, work: Callable[[Connection], T], action: str) -> T:
        if self.readonly:
            raise ReadOnlyStore(f"cannot {action}: the store {self.location} was opened read-only")
        with self._lock:
            if self._batch_depth:
                conn = self._conn_or_fail()
                with self._reporting(action):
                    return work(conn)  # part of the surrounding batch's transaction
            with self._reporting(action):
                return self._retry(lambda: self._transaction(self._conn_or_fail(), work))

    @contextlib.contextmanager
    def _reporting(self, action: str) -> Iterator[None]:
        """Damage and a role without the right to write become one clear store error."""
        try:
            yield
        except self._dialect.error as err:
            if self._dialect.is_damaged(err):
                if self.location.is_server:
                    raise StoreError(f"the store {self.location} reports damaged data ({err})") from err
                raise StoreDamaged(self.path, err) from err
            if self._dialect.is_denied(err):
                raise ReadOnlyStore(f"cannot {action}: the store {self.location} may not be written by "
                                    f"this role ({_first_line(err)})") from err
            raise

    def _write_always(self, work: Callable[[Connection], T], action: str) -> T:
        """Like :meth:`_write`, on a read-only store too, through a writable connection of its own
        (commands and stop requests come from viewers: the sidebar, the CLI, another kernel)."""
        if not self.readonly:
            return self._write(work, action)
        if not self.location.is_server and not self.path.exists():
            raise StoreError(f"cannot {action}: the store {self.location} does not exist")
        try:
            writer = self._open(readonly=False)
        except StoreUnreachable:
            raise
        except StoreError as err:
            raise ReadOnlyStore(f"cannot {action}: {err}") from err
        try:
            with self._reporting(action):
                return retrying(lambda: self._transaction(writer, work), self._dialect, self._retry_period,
                                self.location)
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
            raise ReadOnlyStore(f"cannot write a batch: the store {self.location} was opened read-only")
        with self._lock:
            if self._batch_depth:
                self._batch_depth += 1
                try:
                    yield
                finally:
                    self._batch_depth -= 1
                return
            conn = self._retry(self._begin)
            self._batch_depth = 1
            try:
                yield
            except self._dialect.error as err:
                rollback(conn, self._dialect)
                if not self._dialect.is_lost(err):
                    raise
                self._drop_connection()  # nothing of the batch was committed: the caller may write it again
                raise StoreUnreachable(f"the connection to the store {self.location} was lost during a "
                                       f"batch ({type(err).__name__}); nothing of it was written") from err
            except BaseException:
                rollback(conn, self._dialect)
                raise
            else:
                # Not retried on a new connection: a COMMIT there would commit nothing.
                retrying(lambda: conn.execute("COMMIT"), self._dialect, self._retry_period, self.location)
            finally:
                self._batch_depth = 0

    def _begin(self) -> Connection:
        conn = self._conn_or_fail()
        try:
            self._dialect.begin(conn)
        except BaseException:
            rollback(conn, self._dialect)
            raise
        return conn

    def _experiment_names(self, conn: Connection) -> list[str]:
        return [row[0] for row in conn.execute("SELECT name FROM experiments ORDER BY name")]

    def _unknown(self, name: str) -> UnknownExperiment:
        nothing: list[str] = []
        names = self._read(self._experiment_names, nothing)
        return UnknownExperiment(name, names, self.location)

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

        def work(conn: Connection) -> None:
            if conn.execute(sql, (*values, *key)).rowcount == 0:
                raise self._missing(table, key)

        self._write(work, f"update {table}")

    def _missing(self, table: str, key: tuple[Any, ...]) -> StoreError:
        if table == "trials":
            return UnknownTrial(f"no trial {key[1]} in experiment id {key[0]} of {self.location}")
        return StoreError(f"no experiment with id {key[0]} in {self.location}")


def dialect_for(where: StoreLocation) -> Dialect:
    """The dialect of the store at ``where`` (psycopg is imported only for a server store)."""
    if where.is_server:
        from hpnb.core.store.postgres import PostgresDialect

        return PostgresDialect()
    return SQLiteDialect()


def _first_line(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
