"""Which MLflow runs hold a search, and what they already have: found again by their tags.

A search is one parent run (tag ``hpnb.role = search``) and one nested run per trial (``hpnb.role
= trial``, ``hpnb.trial = ID``, ``mlflow.parentRunId``), all tagged with the search's key (its
name and when it was created, so a search made again under the same name gets runs of its own).
Each trial run's ``hpnb.sent_seq`` says up to which report it has its metrics, and its
``hpnb.state`` which end it was given: a resumed search, or an export of one already sent,
continues these runs and sends only what they lack.

An MLflow experiment of the name asked for that was deleted is restored (MLflow keeps deleted
experiments' names taken); one that does not exist is created.

Example:
    >>> book = RunBook.open(client, "mlp-lr", record)   # doctest: +SKIP
    >>> book.sent.get(3, 0)                              # doctest: +SKIP
    50
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hpnb.core.store import ExperimentRecord

if TYPE_CHECKING:
    from mlflow.entities import Run
    from mlflow.tracking import MlflowClient

log = logging.getLogger("hpnb")

ROLE, KEY, TRIAL, SENT, STATE = "hpnb.role", "hpnb.search_key", "hpnb.trial", "hpnb.sent_seq", "hpnb.state"
PARENT_TAG = "mlflow.parentRunId"
#: runs read per page when a search's runs are looked up.
PAGE = 1000


def search_key(record: ExperimentRecord) -> str:
    """The tag value that tells this search's runs apart (letters, digits, ``._-@`` only)."""
    return f"{record.name}@{record.created:.3f}"


def artifact_location(uri: str) -> str | None:
    """Where a new experiment of a SQLite store keeps its artifacts: a folder beside the database
    (``mlflow.db`` -> ``mlflow-artifacts/``), not MLflow's default ``./mlruns`` of whatever folder
    the kernel runs in; None (the store's default) for any other URI.

    Example:
        >>> artifact_location("sqlite:////tmp/runs/mlflow.db")
        'file:///tmp/runs/mlflow-artifacts'
    """
    if not uri.startswith("sqlite:///"):
        return None
    database = Path(uri[len("sqlite:///"):]).expanduser().resolve()
    return database.with_name(f"{database.stem}-artifacts").as_uri()


def experiment_id(client: MlflowClient, name: str) -> tuple[str, bool]:
    """The id of the MLflow experiment ``name`` (created, or restored if deleted) and whether it
    was restored."""
    from mlflow.exceptions import MlflowException

    found = client.get_experiment_by_name(name)
    if found is None:
        try:
            return client.create_experiment(name, artifact_location(client.tracking_uri)), False
        except MlflowException:  # made meanwhile by another process
            found = client.get_experiment_by_name(name)
            if found is None:
                raise
    if found.lifecycle_stage == "deleted":
        client.restore_experiment(found.experiment_id)
        log.warning("hpnb: the MLflow experiment %r had been deleted; it was restored to receive "
                    "this search's runs", name)
        return found.experiment_id, True
    return found.experiment_id, False


@dataclass
class RunBook:
    """The runs of one search in one MLflow experiment, and what each has received."""

    experiment_id: str
    parent: str
    #: trial id -> run id
    trials: dict[int, str] = field(default_factory=dict)
    #: trial id -> the last report seq the run has
    sent: dict[int, int] = field(default_factory=dict)
    #: trial id -> the state the run was last given
    states: dict[int, str] = field(default_factory=dict)
    #: the parent run's tags as last sent
    parent_tags: dict[str, str] = field(default_factory=dict)
    #: the MLflow experiment had been deleted and was restored
    restored: bool = False
    #: the parent run was made by this book (not found)
    created: bool = False

    @classmethod
    def open(cls, client: MlflowClient, experiment: str, record: ExperimentRecord,
             parent_tags: dict[str, str]) -> RunBook:
        """Find the search's runs in ``experiment`` (made or restored), or make its parent run
        with ``parent_tags``."""
        exp_id, restored = experiment_id(client, experiment)
        key = search_key(record)
        runs = _runs_of(client, exp_id, key)
        parents = [run for run in runs if run.data.tags.get(ROLE) == "search"]
        if parents:
            parent, created = min(parents, key=lambda run: run.info.start_time or 0), False
        else:
            tags = {**parent_tags, ROLE: "search", KEY: key, "mlflow.runName": record.name}
            parent = client.create_run(exp_id, start_time=int(record.created * 1000), tags=tags,
                                       run_name=record.name)
            created = True
        book = cls(exp_id, parent.info.run_id, restored=restored, created=created,
                   parent_tags=dict(parent.data.tags))
        for run in runs:
            book._learn(run)
        return book

    def _learn(self, run: Run) -> None:
        tags = run.data.tags
        if tags.get(ROLE) != "trial" or tags.get(PARENT_TAG) != self.parent:
            return
        try:
            trial_id = int(tags[TRIAL])
        except (KeyError, ValueError):
            return
        self.trials[trial_id] = run.info.run_id
        self.sent[trial_id] = int(tags.get(SENT, "0") or 0)
        if STATE in tags:
            self.states[trial_id] = tags[STATE]


def _runs_of(client: MlflowClient, exp_id: str, key: str) -> list[Run]:
    """Every live run of ``exp_id`` tagged with the search ``key``."""
    runs: list[Run] = []
    token = None
    while True:
        page = client.search_runs([exp_id], filter_string=f"tags.`{KEY}` = '{key}'", max_results=PAGE,
                                  page_token=token)
        runs.extend(page)
        token = page.token
        if not token:
            return runs
