"""Copying searches from one store to another (a SQLite file into a team's PostgreSQL database, and back).

Everything a search keeps comes along: the search itself (spec, state, strategy state, owner),
its trials with their checkpoint and artifact references, every reported result in the order it
was stored, the trials' output, its events and its commands with their answers. The references
are copied as they are: the checkpoint files stay where they are (name ``checkpoints.store`` in
the spec, or copy the folder, when the target's readers are on other machines). Ids of searches,
events and commands are the target's own; trial ids and result numbers are kept.

Example:
    >>> import tempfile, pathlib
    >>> from hpnb.core.store import Store
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with Store(folder / "a.sqlite") as a, Store(folder / "b.sqlite") as b:
    ...     _ = a.create_experiment("s", {}, metric="m", mode="min", strategy="random", budget=1,
    ...                             parallel=1)
    ...     copy_store(a, b)
    ...     [e.name for e in b.experiments()]
    ['s']
    ['s']
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from hpnb.core.store.dialect import Connection
from hpnb.core.store.store import Store
from hpnb.core.store.store_errors import NameTaken

# Every column of each table but the ids the target numbers itself; constants, never user input.
_EXPERIMENT = ("name", "spec", "source", "state", "budget", "parallel", "metric", "mode", "strategy",
               "created", "updated", "message", "stop_requested", "strategy_state", "scheduler_state",
               "driver", "heartbeat", "owner")
_PER_SEARCH = {
    "trials": ("trial_id", "params", "state", "started", "ended", "worker", "error", "retries", "parent",
               "last_step", "value", "best", "metrics", "checkpoint", "stop_reason", "checkpoint_step"),
    "trial_logs": ("trial_id", "attempt", "stdout", "stderr", "stdout_bytes", "stderr_bytes", "worker",
                   "peak_memory", "note", "truncated", "updated"),
    "events": ("time", "kind", "data"),
    "commands": ("kind", "value", "source", "created", "state", "reply", "answered"),
}
_RESULTS = ("trial_id", "seq", "step", "time", "value", "metrics")
#: results read and written per round trip
CHUNK = 5000


def copy_store(source: Store, target: Store, names: Iterable[str] | None = None) -> list[str]:
    """Copy the searches ``names`` (default: all) of ``source`` into ``target``; their names.

    Each search is copied in one transaction of the target: all of it or nothing.

    Raises:
        NameTaken: the target has a search of that name already (nothing of it is copied).
    """
    wanted = None if names is None else set(names)
    copied = []
    for record in reversed(source.experiments()):  # oldest first: the target numbers them in order
        if wanted is not None and record.name not in wanted:
            continue
        if target.find_experiment(record.name) is not None:
            raise NameTaken(record.name, target.location)
        _copy_search(source, target, record.id)
        copied.append(record.name)
    return copied


def _copy_search(source: Store, target: Store, old_id: int) -> None:
    row = source._read(lambda conn: conn.execute(
        f"SELECT {', '.join(_EXPERIMENT)} FROM experiments WHERE id = ?", (old_id,)).fetchone(), None)
    if row is None:
        return
    with target.batch():
        new_id = target._write(lambda conn: int(conn.execute(
            f"INSERT INTO experiments ({', '.join(_EXPERIMENT)}) VALUES ({_marks(len(_EXPERIMENT))})"
            " RETURNING id", tuple(row)).fetchone()[0]), "copy a search")
        nothing: list[tuple[Any, ...]] = []
        for table, columns in _PER_SEARCH.items():
            rows = source._read(functools.partial(_rows, table=table, columns=columns, experiment_id=old_id),
                                nothing)
            _insert(target, table, columns, new_id, rows)
        after = 0
        while True:
            read = functools.partial(_results_after, experiment_id=old_id, after=after)
            chunk = source._read(read, nothing)
            if not chunk:
                break
            after = chunk[-1][0]
            _insert(target, "results", _RESULTS, new_id, [tuple(r[1:]) for r in chunk])


def _results_after(conn: Connection, experiment_id: int, after: int) -> list[tuple[Any, ...]]:
    sql = (f"SELECT rowid, {', '.join(_RESULTS)} FROM results WHERE experiment_id = ? AND rowid > ?"
           " ORDER BY rowid LIMIT ?")
    return [tuple(row) for row in conn.execute(sql, (experiment_id, after, CHUNK))]


def _rows(conn: Connection, table: str, columns: tuple[str, ...],
          experiment_id: int) -> list[tuple[Any, ...]]:
    order = "trial_id" if "trial_id" in columns else "id"
    sql = f"SELECT {', '.join(columns)} FROM {table} WHERE experiment_id = ? ORDER BY {order}"
    return [tuple(row) for row in conn.execute(sql, (experiment_id,))]


def _insert(target: Store, table: str, columns: tuple[str, ...], experiment_id: int,
            rows: list[tuple[Any, ...]]) -> None:
    if not rows:
        return
    sql = f"INSERT INTO {table} (experiment_id, {', '.join(columns)}) VALUES ({_marks(len(columns) + 1)})"
    values = [(experiment_id, *row) for row in rows]
    target._write(lambda conn: conn.executemany(sql, values), f"copy {table}")


def _marks(count: int) -> str:
    return ", ".join("?" * count)
