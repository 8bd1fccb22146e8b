"""The store's tables and the migrations that build and upgrade them.

``MIGRATIONS[i]`` takes a store from schema version ``i`` to ``i + 1``. A new
store runs every step; an older one runs the steps it misses, in one
transaction. Steps are never edited once released: a change to the schema is a
new step at the end. The steps are written in SQLite's words; a
:class:`~hpnb.core.store.dialect.Dialect` turns each into its database's (column
types, the ``rowid`` PostgreSQL lacks) and records the version (SQLite's
``PRAGMA user_version``, a one-row ``hpnb_schema`` table on PostgreSQL).
"""

from __future__ import annotations

from hpnb.core.store.dialect import Connection, Dialect
from hpnb.core.store.store_errors import StoreVersionError

_VERSION_1 = (
    """CREATE TABLE experiments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        source TEXT,
        state TEXT NOT NULL,
        budget INTEGER NOT NULL,
        parallel INTEGER,
        metric TEXT NOT NULL,
        mode TEXT NOT NULL,
        strategy TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        message TEXT,
        stop_requested INTEGER NOT NULL DEFAULT 0,
        strategy_state TEXT,
        scheduler_state TEXT
    )""",
    """CREATE TABLE trials (
        experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        trial_id INTEGER NOT NULL,
        params TEXT NOT NULL,
        state TEXT NOT NULL,
        started REAL,
        ended REAL,
        worker TEXT,
        error TEXT,
        retries INTEGER NOT NULL DEFAULT 0,
        parent INTEGER,
        last_step INTEGER,
        value REAL,
        best REAL,
        metrics TEXT NOT NULL DEFAULT '{}',
        checkpoint TEXT,
        PRIMARY KEY (experiment_id, trial_id)
    )""",
    """CREATE TABLE results (
        experiment_id INTEGER NOT NULL,
        trial_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        step INTEGER,
        time REAL NOT NULL,
        value REAL,
        metrics TEXT NOT NULL,
        PRIMARY KEY (experiment_id, trial_id, seq),
        FOREIGN KEY (experiment_id, trial_id) REFERENCES trials(experiment_id, trial_id) ON DELETE CASCADE
    )""",
)

_VERSION_2 = (
    "ALTER TABLE experiments ADD COLUMN driver TEXT",
    "ALTER TABLE trials ADD COLUMN stop_reason TEXT",
    "ALTER TABLE trials ADD COLUMN checkpoint_step INTEGER",
    """CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        time REAL NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    )""",
    "CREATE INDEX events_by_experiment ON events (experiment_id, id)",
)

#: the driver's heartbeat (epoch seconds): liveness that any process on any host can read.
_VERSION_3 = ("ALTER TABLE experiments ADD COLUMN heartbeat REAL",)

#: what each trial printed (the tail of its stdout and stderr), where it ran and its peak memory.
_VERSION_4 = (
    """CREATE TABLE trial_logs (
        experiment_id INTEGER NOT NULL,
        trial_id INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        stdout TEXT NOT NULL,
        stderr TEXT NOT NULL,
        stdout_bytes INTEGER NOT NULL,
        stderr_bytes INTEGER NOT NULL,
        worker TEXT,
        peak_memory INTEGER,
        note TEXT,
        truncated INTEGER NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (experiment_id, trial_id),
        FOREIGN KEY (experiment_id, trial_id) REFERENCES trials(experiment_id, trial_id) ON DELETE CASCADE
    )""",
)

#: user commands to a search's driver, whichever process runs it (the one control channel), and
#: who started each search (``user@host``).
_VERSION_5 = (
    """CREATE TABLE commands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        value INTEGER,
        source TEXT,
        created REAL NOT NULL,
        state TEXT NOT NULL,
        reply TEXT,
        answered REAL
    )""",
    "CREATE INDEX commands_by_state ON commands (experiment_id, state, id)",
    "ALTER TABLE experiments ADD COLUMN owner TEXT",
)

#: one tuple of statements per schema version.
MIGRATIONS: tuple[tuple[str, ...], ...] = (_VERSION_1, _VERSION_2, _VERSION_3, _VERSION_4, _VERSION_5)

#: the schema version this hpnb writes.
SCHEMA_VERSION = len(MIGRATIONS)


def check_not_newer(version: int, path: object) -> None:
    """Raise :class:`StoreVersionError` if the file was written by a newer hpnb."""
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"the store {path} has schema version {version}, but this hpnb understands versions up to "
            f"{SCHEMA_VERSION}; upgrade hpnb (pip install -U hpnb) or name another store (HPNB_STORE, "
            "HPNB_HOME)"
        )


def migrate(conn: Connection, dialect: Dialect, where: object) -> int:
    """Bring the store up to :data:`SCHEMA_VERSION`; returns the version it had.

    Must run inside a write transaction (the dialect's ``begin``) so that two
    processes opening a new store at once do not both create the tables.
    """
    dialect.lock_store(conn)
    found = dialect.schema_version(conn)
    check_not_newer(found, where)
    for steps in MIGRATIONS[found:]:
        for statement in steps:
            for translated in dialect.ddl(statement):
                conn.execute(translated)
    if found != SCHEMA_VERSION:
        dialect.record_version(conn, SCHEMA_VERSION)
    return found
