from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hpnb.core.store import ResultRow, Store, StoreVersionError
from hpnb.core.store.schema import SCHEMA_VERSION

# The schema as the first release wrote it; kept here verbatim so that a change to
# a released migration step (instead of a new step) breaks this test.
VERSION_1_DDL = """
CREATE TABLE experiments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL, source TEXT,
    state TEXT NOT NULL, budget INTEGER NOT NULL, parallel INTEGER, metric TEXT NOT NULL,
    mode TEXT NOT NULL, strategy TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    message TEXT, stop_requested INTEGER NOT NULL DEFAULT 0, strategy_state TEXT, scheduler_state TEXT
);
CREATE TABLE trials (
    experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    trial_id INTEGER NOT NULL, params TEXT NOT NULL, state TEXT NOT NULL, started REAL, ended REAL,
    worker TEXT, error TEXT, retries INTEGER NOT NULL DEFAULT 0, parent INTEGER, last_step INTEGER,
    value REAL, best REAL, metrics TEXT NOT NULL DEFAULT '{}', checkpoint TEXT,
    PRIMARY KEY (experiment_id, trial_id)
);
CREATE TABLE results (
    experiment_id INTEGER NOT NULL, trial_id INTEGER NOT NULL, seq INTEGER NOT NULL, step INTEGER,
    time REAL NOT NULL, value REAL, metrics TEXT NOT NULL,
    PRIMARY KEY (experiment_id, trial_id, seq),
    FOREIGN KEY (experiment_id, trial_id) REFERENCES trials(experiment_id, trial_id) ON DELETE CASCADE
);
INSERT INTO experiments (name, spec, state, budget, parallel, metric, mode, strategy, created, updated)
    VALUES ('old-search', '{"trials": 3}', 'COMPLETED', 3, 1, 'loss', 'min', 'grid', 100.0, 200.0);
INSERT INTO trials (experiment_id, trial_id, params, state, value, metrics)
    VALUES (1, 0, '{"lr": 0.1}', 'COMPLETED', 0.5, '{"loss": 0.5}');
INSERT INTO results (experiment_id, trial_id, seq, step, time, value, metrics)
    VALUES (1, 0, 1, 0, 150.0, 0.5, '{"loss": 0.5}');
PRAGMA user_version = 1;
"""


def _write_version_1(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(VERSION_1_DDL)
    conn.close()


def _user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_new_file_gets_the_current_version(sqlite_store: Store) -> None:
    assert _user_version(sqlite_store.path) == SCHEMA_VERSION >= 2


def test_version_1_file_is_migrated_and_keeps_its_data(sqlite_path: Path) -> None:
    _write_version_1(sqlite_path)
    with Store(sqlite_path) as store:
        old = store.experiment("old-search")
        assert (old.state, old.budget, old.strategy, old.driver, old.created) == (
            "COMPLETED",
            3,
            "grid",
            None,
            100.0,
        )
        trial = store.trial(old.id, 0)
        assert (trial.params, trial.value, trial.stop_reason, trial.checkpoint_step) == (
            {"lr": 0.1},
            0.5,
            None,
            None,
        )
        assert store.results(old.id) == [ResultRow(0, 1, 0, 150.0, 0.5, {"loss": 0.5})]
        # what version 2 added works on the migrated file
        store.update_experiment(old.id, driver="host:1")
        store.update_trial(old.id, 0, stop_reason="median")
        store.add_event(old.id, "resumed", {})
        assert store.experiment("old-search").driver == "host:1"
        assert [e["kind"] for e in store.events(old.id)] == ["resumed"]
    assert _user_version(sqlite_path) == SCHEMA_VERSION


def test_version_1_file_is_migrated_by_a_readonly_opener(sqlite_path: Path) -> None:
    _write_version_1(sqlite_path)
    with Store(sqlite_path, readonly=True) as store:
        assert [e.name for e in store.experiments()] == ["old-search"]
        assert store.events(store.experiment("old-search").id) == []
    assert _user_version(sqlite_path) == SCHEMA_VERSION


def test_reopening_does_not_migrate_twice(sqlite_path: Path) -> None:
    with Store(sqlite_path) as store:
        store.create_experiment("a", {}, metric="m", mode="max", strategy="grid", budget=1, parallel=None)
    with Store(sqlite_path) as store:
        assert [e.name for e in store.experiments()] == ["a"]


@pytest.mark.parametrize("readonly", [False, True])
def test_file_from_a_newer_version_is_refused_clearly(sqlite_path: Path, readonly: bool) -> None:
    with Store(sqlite_path):
        pass
    conn = sqlite3.connect(sqlite_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    message = (
        f"schema version {SCHEMA_VERSION + 1}, but this hpnb understands versions up to {SCHEMA_VERSION}"
    )
    with pytest.raises(StoreVersionError, match=message):
        with Store(sqlite_path, readonly=readonly) as store:
            store.experiments()
    assert _user_version(sqlite_path) == SCHEMA_VERSION + 1
