"""The experiment store: one SQLite file or PostgreSQL database shared by every notebook, the CLI and
the sidebar."""

from __future__ import annotations

import time
from typing import Any

from hpnb.core.store import codec
from hpnb.core.store.base import CLEAR
from hpnb.core.store.commands import CommandRecord, CommandStore
from hpnb.core.store.dialect import Connection
from hpnb.core.store.owners import current_owner
from hpnb.core.store.records import (
    EXPERIMENT_COLUMNS,
    EXPERIMENT_SELECT,
    MODES,
    ExperimentRecord,
    experiment_from_row,
    validate_choice,
    validate_name,
    validate_state,
)
from hpnb.core.store.store_errors import NameTaken, StoreError
from hpnb.core.store.trial_logs import TrialLogStore
from hpnb.core.store.trials import TrialStore, delete_results
from hpnb.core.trial import ExperimentState


class Store(TrialStore, TrialLogStore, CommandStore):
    """Experiments, trials, results, trial output, checkpoint references, events and commands in one
    SQLite file or one PostgreSQL database.

    A store may be shared between threads (one lock serialises its connection);
    several processes may use one file at once. Each write method is one transaction.

    Its arguments (the file or URL, read-only, the busy timeout) are those of
    :class:`~hpnb.core.store.base.StoreBase`.

    Example:
        >>> import tempfile, pathlib
        >>> from hpnb.core.store import ResultRow
        >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "hpnb.sqlite") as store:
        ...     exp = store.create_experiment("demo", {}, metric="loss", mode="min",
        ...                                   strategy="random", budget=4, parallel=2)
        ...     store.add_trial(exp.id, 0, {"lr": 0.1})
        ...     store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {"loss": 0.5})])
        ...     [e.name for e in store.experiments()]
        1
        ['demo']
    """

    # -- experiments ------------------------------------------------------------------------

    def create_experiment(
        self,
        name: str,
        spec: dict[str, Any],
        *,
        source: str | None = None,
        metric: str,
        mode: str,
        strategy: str,
        budget: int,
        parallel: int | None,
        overwrite: bool = False,
        owner: str | None = None,
    ) -> ExperimentRecord:
        """Record a new experiment in state CREATED; :class:`NameTaken` if the name is used.

        ``owner`` (who started it) defaults to :func:`~hpnb.core.store.owners.current_owner`.
        """
        validate_name(name)
        values = (
            codec.dumps(codec.mapping(spec, "spec"), "spec"),
            codec.text(source, "source"),
            codec.count(budget, "budget", 0),
            None if parallel is None else codec.count(parallel, "parallel", 1),
            self._nonempty(metric, "metric"),
            validate_choice(mode, MODES, "mode"),
            self._nonempty(strategy, "strategy"),
            current_owner() if owner is None else self._nonempty(owner, "owner"),
        )

        def work(conn: Connection) -> None:
            old = conn.execute("SELECT id FROM experiments WHERE name = ?", (name,)).fetchone()
            if old is not None:
                if not overwrite:
                    raise NameTaken(name, self.path)
                delete_results(conn, "id = ?", old[0])
                conn.execute("DELETE FROM experiments WHERE id = ?", (old[0],))
            now = time.time()
            try:
                conn.execute(
                    "INSERT INTO experiments (name, spec, source, budget, parallel, metric, mode, strategy,"
                    " owner, state, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, *values, ExperimentState.CREATED.value, now, now),
                )
            except self._dialect.integrity_error as err:  # another process took the name meanwhile
                raise NameTaken(name, self.location) from err

        self._write(work, "create an experiment")
        return self.experiment(name)

    @staticmethod
    def _nonempty(value: Any, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise StoreError(f"{field}: must be a non-empty string (got {value!r})")
        return value

    def find_experiment(self, name: str) -> ExperimentRecord | None:
        """The experiment called ``name``, or None."""

        def work(conn: Connection) -> ExperimentRecord | None:
            row = conn.execute(EXPERIMENT_SELECT + " WHERE name = ?", (name,)).fetchone()
            return None if row is None else experiment_from_row(row)

        return self._read(work, None)

    def experiment(self, name: str) -> ExperimentRecord:
        """The experiment called ``name``; :class:`UnknownExperiment` (with a suggestion) if none."""
        found = self.find_experiment(name)
        if found is None:
            raise self._unknown(name)
        return found

    def experiment_with_id(self, experiment_id: int) -> ExperimentRecord:
        """The experiment with this id; :class:`StoreError` if there is none."""

        def work(conn: Connection) -> ExperimentRecord | None:
            row = conn.execute(EXPERIMENT_SELECT + " WHERE id = ?", (experiment_id,)).fetchone()
            return None if row is None else experiment_from_row(row)

        found = self._read(work, None)
        if found is None:
            raise StoreError(f"no experiment with id {experiment_id} in {self.location}")
        return found

    def experiments(self) -> list[ExperimentRecord]:
        """Every experiment, newest first."""

        def work(conn: Connection) -> list[ExperimentRecord]:
            rows = conn.execute(EXPERIMENT_SELECT + " ORDER BY created DESC, id DESC")
            return [experiment_from_row(row) for row in rows]

        return self._read(work, [])

    def update_experiment(
        self,
        experiment_id: int,
        *,
        state: str | None = None,
        message: str | None = None,
        budget: int | None = None,
        parallel: int | None = None,
        driver: str | None = None,
        heartbeat: float | None = None,
        strategy_state: dict[str, Any] | None = None,
        scheduler_state: dict[str, Any] | None = None,
    ) -> None:
        """Change the given fields (``None``: unchanged, :data:`CLEAR`: set to NULL) and ``updated``."""
        given = {
            "state": state, "message": message, "budget": budget, "parallel": parallel,
            "driver": driver, "heartbeat": heartbeat, "strategy_state": strategy_state,
            "scheduler_state": scheduler_state,
        }  # fmt: skip
        changes = {key: value for key, value in given.items() if value is not None}
        if changes.get("state") not in (None, CLEAR):
            changes["state"] = validate_state(changes["state"], ExperimentState)
        for key in ("budget", "parallel"):
            if changes.get(key) not in (None, CLEAR):
                changes[key] = codec.count(changes[key], key, 0 if key == "budget" else 1)
        if changes.get("state") is CLEAR or changes.get("budget") is CLEAR:
            raise StoreError("state and budget cannot be cleared")
        self._update("experiments", EXPERIMENT_COLUMNS, changes, "id = ?", (experiment_id,), extra="updated")

    def request_stop(self, name: str, source: str | None = None) -> CommandRecord:
        """Ask the driver of ``name`` to stop the search (a ``stop`` command); allowed on a
        read-only store too."""
        record = self.find_experiment(name)
        if record is None:
            raise self._unknown(name)
        return self.send_command(record.id, "stop", source=source)

    def clear_stop(self, experiment_id: int) -> None:
        """Forget a stop request (the driver calls this once it has acted on it, or on resume)."""
        self._update("experiments", {"stop_requested": ("stop_requested", "int")},
                     {"stop_requested": 0}, "id = ?", (experiment_id,), extra="updated")  # fmt: skip

    def delete_experiment(self, name: str) -> None:
        """Delete the experiment with its trials, results and events."""

        def work(conn: Connection) -> int:
            delete_results(conn, "name = ?", name)
            return conn.execute("DELETE FROM experiments WHERE name = ?", (name,)).rowcount

        if self._write(work, "delete an experiment") == 0:
            raise self._unknown(name)
