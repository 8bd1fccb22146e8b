"""Invariants every hpnb store a test wrote must hold, checked after the test.

- No (experiment, trial, step) is stored twice in ``results``. A result with no
  step is identified by its ``seq`` instead (which the primary key already keeps
  unique, so those rows can never collide; they are grouped by it, not skipped).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

_DUPLICATES = """
    SELECT e.name, r.trial_id, r.step, r.seq, COUNT(*) FROM results AS r
    LEFT JOIN experiments AS e ON e.id = r.experiment_id
    GROUP BY r.experiment_id, r.trial_id, r.step, CASE WHEN r.step IS NULL THEN r.seq END
    HAVING COUNT(*) > 1
    ORDER BY r.experiment_id, r.trial_id, r.step
"""


def stores_under(root: Path) -> list[Path]:
    """Every hpnb store (``*.sqlite``) below ``root``."""
    return sorted(path for path in root.rglob("*.sqlite") if path.is_file())


def _has_results_table(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'results'")
    return found.fetchone() is not None


def duplicate_results(path: Path) -> list[str]:
    """One line per (experiment, trial, step) stored more than once in the store at ``path``.

    A file that is not an SQLite database, or has no results table (tests of
    broken or foreign files), has no duplicates.
    """
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
            if not _has_results_table(conn):
                return []
            rows = conn.execute(_DUPLICATES).fetchall()
    except sqlite3.DatabaseError:
        return []
    return [f"experiment {name!r}, trial {trial}, step {step if step is not None else f'None (seq {seq})'}: "
            f"stored {count} times" for name, trial, step, seq, count in rows]


def assert_no_duplicate_results(root: Path) -> None:
    """Fail naming every store under ``root`` that holds a (trial, step) twice."""
    problems = [f"{path}: {line}" for path in stores_under(root) for line in duplicate_results(path)]
    assert not problems, "a (trial, step) was stored twice:\n" + "\n".join(problems)


@pytest.fixture(autouse=True)
def no_result_stored_twice(tmp_path: Path) -> Iterator[None]:
    """After each test, check every store it created under its ``tmp_path``."""
    yield
    assert_no_duplicate_results(tmp_path)
