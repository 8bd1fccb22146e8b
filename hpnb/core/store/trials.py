"""The trial side of the store: trials, reported results, checkpoint references and events."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from hpnb.core.store import codec
from hpnb.core.store.base import StoreBase
from hpnb.core.store.dialect import Connection
from hpnb.core.store.records import (
    TRIAL_COLUMNS,
    TRIAL_SELECT,
    ResultRow,
    TrialRecord,
    trial_from_row,
    validate_state,
)
from hpnb.core.store.store_errors import StoreError, UnknownTrial
from hpnb.core.trial import TrialState

_RESULT_SELECT = "SELECT trial_id, seq, step, time, value, metrics FROM results"
_RESULT_COLUMNS = (("experiment_id", "int"), ("trial_id", "int"), ("seq", "int"), ("step", "int"),
                   ("time", "real"), ("value", "real"), ("metrics", "text"))
#: a LIMIT that limits nothing (both databases take it; PostgreSQL refuses SQLite's -1)
_NO_LIMIT = 2**62


def _result_from_row(row: Sequence[Any]) -> ResultRow:
    return ResultRow(row[0], row[1], row[2], row[3], row[4], codec.loads(row[5]))


def _result_values(experiment_id: int, row: ResultRow) -> tuple[Any, ...]:
    when = codec.real(row.time, "time")
    if when is None:
        raise StoreError(f"time: must be a number of seconds (got {row.time!r})")
    return (
        experiment_id,
        codec.count(row.trial_id, "trial_id", 0),
        codec.count(row.seq, "seq", 1),
        codec.integer(row.step, "step"),
        when,
        codec.real(row.value, "value"),
        codec.dumps(codec.mapping(row.metrics, "metrics"), "metrics"),
    )


def delete_results(conn: Connection, where: str, key: object) -> None:
    """Delete the results of the experiment matching ``where`` (a constant of the store)."""
    # A server store's results have no foreign key (see postgres.py): nothing cascades to them.
    conn.execute(f"DELETE FROM results WHERE experiment_id IN (SELECT id FROM experiments WHERE {where})",
                 (key,))


def _missing_trials(conn: Connection, experiment_id: int, trial_ids: set[int]) -> list[int]:
    """Which of ``trial_ids`` the experiment does not have."""
    ids = sorted(trial_ids)
    found = conn.execute(f"SELECT trial_id FROM trials WHERE experiment_id = ? AND trial_id IN "
                         f"({', '.join('?' * len(ids))})", (experiment_id, *ids)).fetchall()
    return sorted(trial_ids - {row[0] for row in found})


def _integrity_error(violation: str, err: Exception, experiment_id: int, what: str) -> StoreError:
    """The store error for a broken constraint (``violation``: the dialect's name for it)."""
    if violation == "foreign key":
        return StoreError(f"cannot {what}: experiment id {experiment_id} or its trial does not exist")
    return StoreError(f"cannot {what}: {err}")


class TrialStore(StoreBase):
    """Trial, result, checkpoint and event methods of :class:`~hpnb.core.store.Store`."""

    # -- trials -----------------------------------------------------------------------------

    def add_trial(
        self,
        experiment_id: int,
        trial_id: int,
        params: dict[str, Any],
        *,
        parent: int | None = None,
        state: str = TrialState.PENDING.value,
    ) -> None:
        """Record a new trial; a :class:`StoreError` if this trial id is already used."""
        values = (
            experiment_id,
            codec.count(trial_id, "trial_id", 0),
            codec.dumps(codec.mapping(params, "params"), "params"),
            validate_state(state, TrialState),
            codec.integer(parent, "parent"),
        )

        def work(conn: Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO trials (experiment_id, trial_id, params, state, parent)"
                    " VALUES (?, ?, ?, ?, ?)",
                    values,
                )
            except self._dialect.integrity_error as err:
                violation = self._dialect.violation(err)
                if violation == "unique":
                    raise StoreError(
                        f"trial {trial_id} already exists in experiment id {experiment_id}"
                    ) from err
                raise _integrity_error(violation, err, experiment_id, f"add trial {trial_id}") from err

        self._write(work, "add a trial")

    def update_trial(self, experiment_id: int, trial_id: int, **fields: Any) -> None:
        """Change the given :class:`TrialRecord` fields of one trial (ids cannot change).

        Example:
            >>> store.update_trial(exp.id, 3, state="COMPLETED", value=0.12)  # doctest: +SKIP
        """
        unknown = sorted(set(fields) - set(TRIAL_COLUMNS))
        if unknown:
            raise StoreError(
                f"update_trial: unknown field(s) {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(TRIAL_COLUMNS)}"
            )
        if "state" in fields:
            fields["state"] = validate_state(fields["state"], TrialState)
        for key in ("params", "metrics"):
            if key in fields:
                codec.mapping(fields[key], key)
        if fields.get("retries") is not None:
            codec.count(fields["retries"], "retries", 0)
        elif "retries" in fields:
            raise StoreError("retries: must be an integer >= 0 (got None)")
        self._update(
            "trials", TRIAL_COLUMNS, fields, "experiment_id = ? AND trial_id = ?", (experiment_id, trial_id)
        )

    def trials(self, experiment_id: int) -> list[TrialRecord]:
        """The experiment's trials, by trial id."""

        def work(conn: Connection) -> list[TrialRecord]:
            rows = conn.execute(TRIAL_SELECT + " WHERE experiment_id = ? ORDER BY trial_id", (experiment_id,))
            return [trial_from_row(row) for row in rows]

        return self._read(work, [])

    def trial(self, experiment_id: int, trial_id: int) -> TrialRecord:
        """One trial; :class:`UnknownTrial` if there is none."""

        def work(conn: Connection) -> TrialRecord | None:
            row = conn.execute(
                TRIAL_SELECT + " WHERE experiment_id = ? AND trial_id = ?", (experiment_id, trial_id)
            ).fetchone()
            return None if row is None else trial_from_row(row)

        found = self._read(work, None)
        if found is None:
            raise UnknownTrial(f"no trial {trial_id} in experiment id {experiment_id} of {self.location}")
        return found

    def set_checkpoint(self, experiment_id: int, trial_id: int, step: int | None, ref: str) -> None:
        """Remember where the trial's latest checkpoint is kept (the object itself lives elsewhere)."""
        if not isinstance(ref, str) or not ref:
            raise StoreError(f"checkpoint reference: must be a non-empty string (got {ref!r})")
        self._update(
            "trials",
            TRIAL_COLUMNS,
            {"checkpoint": ref, "checkpoint_step": step},
            "experiment_id = ? AND trial_id = ?",
            (experiment_id, trial_id),
        )

    # -- results ----------------------------------------------------------------------------

    def add_results(self, experiment_id: int, rows: Sequence[ResultRow]) -> int:
        """Store reported results exactly once: a (trial_id, seq) already stored is skipped.

        Returns:
            how many rows were new. All rows are written in one transaction.
        """
        values = [_result_values(experiment_id, row) for row in rows]
        if not values:
            return 0

        trial_ids = {value[1] for value in values}

        def work(conn: Connection) -> int:
            self._dialect.lock_search(conn, experiment_id)  # rowids in the order of commits
            missing = _missing_trials(conn, experiment_id, trial_ids)
            if missing:
                raise StoreError(f"cannot add results: experiment id {experiment_id} or its trial "
                                 f"{', '.join(map(str, missing))} does not exist")
            try:
                return self._dialect.insert_rows(conn, "results", _RESULT_COLUMNS, values, True)
            except self._dialect.integrity_error as err:
                violation = self._dialect.violation(err)
                raise _integrity_error(violation, err, experiment_id, "add results") from err

        return self._write(work, "add results")

    def results(
        self,
        experiment_id: int,
        *,
        trial_id: int | None = None,
        trial_ids: Sequence[int] | None = None,
        after: int = 0,
        limit: int | None = None,
    ) -> list[ResultRow]:
        """Results ordered by trial then seq; only those with ``seq > after``, at most ``limit``;
        of one trial (``trial_id``) or of several (``trial_ids``, in one query).

        Page through one trial with ``after`` set to the last seq seen; see
        :meth:`results_since` to follow new results of every trial.
        """
        sql = _RESULT_SELECT + " WHERE experiment_id = ? AND seq > ?"
        params: list[Any] = [experiment_id, after]
        if trial_id is not None:
            sql += " AND trial_id = ?"
            params.append(trial_id)
        if trial_ids is not None:
            ids = [codec.count(trial, "trial_ids", 0) for trial in trial_ids]
            if not ids:
                return []
            sql += f" AND trial_id IN ({', '.join('?' * len(ids))})"
            params += ids
        sql += " ORDER BY trial_id, seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(codec.count(limit, "limit", 0))

        def work(conn: Connection) -> list[ResultRow]:
            return [_result_from_row(row) for row in conn.execute(sql, params)]

        return self._read(work, [])

    def results_since(
        self, experiment_id: int, cursor: int = 0, limit: int | None = None
    ) -> tuple[list[ResultRow], int]:
        """Results stored after ``cursor``, in the order they were stored, and the cursor to pass next.

        Example:
            >>> rows, cursor = store.results_since(exp.id)           # doctest: +SKIP
            >>> more, cursor = store.results_since(exp.id, cursor)   # doctest: +SKIP
        """
        sql = _RESULT_SELECT.replace("SELECT ", "SELECT rowid, ", 1)
        sql += " WHERE experiment_id = ? AND rowid > ? ORDER BY rowid LIMIT ?"
        size = _NO_LIMIT if limit is None else codec.count(limit, "limit", 0)

        def work(conn: Connection) -> tuple[list[ResultRow], int]:
            fetched = conn.execute(sql, (experiment_id, cursor, size)).fetchall()
            rows = [_result_from_row(row[1:]) for row in fetched]
            return rows, (fetched[-1][0] if fetched else cursor)

        nothing: tuple[list[ResultRow], int] = ([], cursor)
        return self._read(work, nothing)

    def last_seq(self, experiment_id: int) -> dict[int, int]:
        """Per trial, the highest seq stored (trials without results are absent)."""

        def work(conn: Connection) -> dict[int, int]:
            rows = conn.execute(
                "SELECT trial_id, MAX(seq) FROM results WHERE experiment_id = ? GROUP BY trial_id",
                (experiment_id,),
            )
            return dict(rows.fetchall())

        return self._read(work, {})

    def result_count(self, experiment_id: int) -> int:
        """How many results the experiment has stored."""

        def work(conn: Connection) -> int:
            row = conn.execute("SELECT COUNT(*) FROM results WHERE experiment_id = ?", (experiment_id,))
            return int(row.fetchone()[0])

        return self._read(work, 0)

    # -- events -----------------------------------------------------------------------------

    def add_event(self, experiment_id: int, kind: str, data: dict[str, Any]) -> None:
        """Record a user action or notable happening (stop clicked, extended, parallel changed, exploit)."""
        if not isinstance(kind, str) or not kind:
            raise StoreError(f"event kind: must be a non-empty string (got {kind!r})")
        text = codec.dumps(codec.mapping(data, "event data"), "event data")

        def work(conn: Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO events (experiment_id, time, kind, data) VALUES (?, ?, ?, ?)",
                    (experiment_id, time.time(), kind, text),
                )
            except self._dialect.integrity_error as err:
                violation = self._dialect.violation(err)
                raise _integrity_error(violation, err, experiment_id, "add an event") from err

        self._write(work, "add an event")

    def events(self, experiment_id: int) -> list[dict[str, Any]]:
        """The experiment's events, oldest first: dicts with ``id``, ``time``, ``kind``, ``data``."""

        def work(conn: Connection) -> list[dict[str, Any]]:
            rows = conn.execute(
                "SELECT id, time, kind, data FROM events WHERE experiment_id = ? ORDER BY id",
                (experiment_id,),
            )
            return [{"id": i, "time": t, "kind": k, "data": codec.loads(d)} for i, t, k, d in rows]

        return self._read(work, [])

    def last_event(self, experiment_id: int, kind: str) -> dict[str, Any] | None:
        """The experiment's newest event of ``kind`` (as :meth:`events` gives it), or None."""

        def work(conn: Connection) -> dict[str, Any] | None:
            row = conn.execute(
                "SELECT id, time, kind, data FROM events WHERE experiment_id = ? AND kind = ? "
                "ORDER BY id DESC LIMIT 1",
                (experiment_id, kind),
            ).fetchone()
            return None if row is None else {"id": row[0], "time": row[1], "kind": row[2],
                                             "data": codec.loads(row[3])}

        return self._read(work, None)
