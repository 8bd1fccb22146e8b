"""SQLite's busy answers, all of them retried: a lock held by another process, and a COMMIT refused
while a statement of the connection is still in progress (both SQLITE_BUSY)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hpnb.core.store.sqlite_dialect import SQLiteDialect


def test_a_commit_refused_while_a_statement_is_in_progress_is_busy(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    conn.execute("CREATE TABLE t(a)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(10)])
    conn.execute("BEGIN IMMEDIATE")
    pending = conn.execute("INSERT INTO t SELECT a FROM t RETURNING a")
    pending.fetchone()  # the statement is still in progress
    with pytest.raises(sqlite3.OperationalError) as refused:
        conn.execute("COMMIT")
    assert "statements in progress" in str(refused.value)
    assert SQLiteDialect().is_busy(refused.value)
    conn.close()


def test_a_lock_of_another_connection_is_busy_and_a_syntax_error_is_not(tmp_path: Path) -> None:
    first = sqlite3.connect(tmp_path / "s.db", isolation_level=None, timeout=0)
    second = sqlite3.connect(tmp_path / "s.db", isolation_level=None, timeout=0)
    first.execute("CREATE TABLE t(a)")
    first.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError) as locked:
        second.execute("BEGIN IMMEDIATE")
    assert SQLiteDialect().is_busy(locked.value)
    with pytest.raises(sqlite3.OperationalError) as wrong:
        second.execute("SELEC 1")
    assert not SQLiteDialect().is_busy(wrong.value)
    first.close()
    second.close()
