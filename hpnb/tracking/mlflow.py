"""A search in MLflow: a parent run for the search, a nested run per trial, sent in batches.

What lands where is said in :mod:`~hpnb.tracking.mlflow_search` (the parent run) and
:mod:`~hpnb.tracking.mlflow_trials` (the trial runs); how runs are found again (a resume, an
export) in :mod:`~hpnb.tracking.mlflow_runs`. This module sends: the metrics of each trial with
``log_batch`` (at most MLflow's 1,000 points a call, each call also moving the run's
``hpnb.sent_seq`` so that a point is never sent twice), then the trials' ends, then the parent's
best or front. Everything not sent stays remembered and is sent by the next push.

Example:
    >>> tracker = MlflowTracker("http://127.0.0.1:5000", None, store.path)   # doctest: +SKIP
    >>> tracker.take(StoreFeed(store.path, record.id).read()); tracker.push()   # doctest: +SKIP
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.core.spec.tracking import masked
from hpnb.core.store import ResultRow, TrialRecord
from hpnb.core.trial import ExperimentState, TrialState
from hpnb.tracking.background import TrackerUnreachable
from hpnb.tracking.feed import Unsent, Update
from hpnb.tracking.mlflow_runs import SENT, STATE, RunBook, search_key
from hpnb.tracking.mlflow_search import (
    RUN_STATUS,
    best_changes,
    finished_count,
    front_changes,
    now_ms,
    search_params,
    spec_yaml,
    state_tags,
)
from hpnb.tracking.mlflow_trials import (
    ENDED,
    TRIAL_STATUS,
    TrialFiles,
    end_tags,
    metric_points,
    start_params,
    start_tags,
)
from hpnb.tracking.names import MetricNames
from hpnb.tracking.reach import http_problem, is_http

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

#: MLflow takes at most 1,000 entities in one log_batch, of which at most 100 params and 100 tags:
#: the points of one call leave room for a trial's params and the tags of its end.
BATCH_POINTS = 880
BATCH_TAGS = 100
#: calls to MLflow under way at once (one trial each).
PARALLEL_CALLS = 4


class MlflowTracker(Unsent):
    """Sends one search to the MLflow tracking server (or store) at ``uri``.

    Args:
        uri: the tracking URI (its password, if any, is never shown).
        experiment: the MLflow experiment (None: the search's name).
        store_path: the hpnb store (to find the search's checkpoints and artifacts).
    """

    def __init__(self, uri: str, experiment: str | None, store_path: Path) -> None:
        super().__init__()
        self.uri, self.experiment, self.store_path = uri, experiment, store_path
        self.label = f"MLflow at {masked(uri)}"
        self.names = MetricNames()
        self.book: RunBook | None = None
        self._client: MlflowClient | None = None
        self._files: TrialFiles | None = None
        self._probe = is_http(uri)

    # -- the Tracker protocol (take: Unsent's) ---------------------------------------------------
    def push(self) -> None:
        update = self.latest
        if update is None:
            return
        if self._probe:
            problem = http_problem(self.uri, timeout=2.0)
            if problem is not None:
                raise TrackerUnreachable(problem)
        try:
            book = self._book(update)
            self._send_trials(book, update)
            self._send_search(book, update)
        except Exception:
            self._probe = is_http(self.uri)  # ask /health first next time: MLflow's client retries long
            raise
        self._probe = False

    def close(self, update: Update) -> None:
        """End the runs as the store says: the search's status, unfinished trials KILLED."""
        book = self._book(update)
        client = self.client
        for trial in update.trials:
            run_id = book.trials.get(trial.trial_id)
            unfinished = trial.state not in ENDED and book.states.get(trial.trial_id) != "KILLED"
            if run_id is not None and unfinished:
                client.log_batch(run_id, tags=_tags({STATE: trial.state}))
                terminate(client, run_id, "KILLED", now_ms())
                book.states[trial.trial_id] = "KILLED"
        status = RUN_STATUS.get(update.record.state)
        if status is not None:
            terminate(client, book.parent, status, int(update.record.updated * 1000))

    def unsent(self) -> str | None:
        batches = sum(math.ceil(len(rows) / BATCH_POINTS) for rows in self.pending.values() if rows)
        name = self.latest.record.name if self.latest is not None else "NAME"
        hint = f"`hpnb export {name} --mlflow {masked(self.uri)}` sends them"
        if batches:
            return f"{batches} metric batches could not reach {self.label}; {hint}"
        if self.book is None and self.latest is not None:
            return f"the search's runs could not reach {self.label}; {hint}"
        return None

    # -- the runs -----------------------------------------------------------------------------
    @property
    def client(self) -> MlflowClient:
        if self._client is None:
            from mlflow.tracking import MlflowClient

            self._client = MlflowClient(self.uri)
        return self._client

    def _book(self, update: Update) -> RunBook:
        if self.book is None:
            record = update.record
            book = RunBook.open(self.client, self.experiment or record.name, record, state_tags(record))
            if book.created:
                self._first_search_content(book, update)
            elif record.state == ExperimentState.RUNNING.value:
                self.client.update_run(book.parent, "RUNNING")  # a resumed search runs again
            self.book = book
            self._files = TrialFiles(self.store_path, record)
        return self.book

    def _first_search_content(self, book: RunBook, update: Update) -> None:
        self._log(book.parent, params=search_params(update.record), tags={"hpnb.search": update.record.name})
        self.client.log_text(book.parent, spec_yaml(update.record), "spec.yaml")

    # -- trials -------------------------------------------------------------------------------
    def _send_trials(self, book: RunBook, update: Update) -> None:
        """Each trial's news in calls of its own, :data:`PARALLEL_CALLS` trials at once: a call
        takes MLflow tens of milliseconds at best, and one after the other they fall behind."""
        jobs = []
        for trial in update.trials:
            rows = self.pending.pop(trial.trial_id, [])
            known = book.states.get(trial.trial_id, trial.state)
            moved = known != trial.state and (trial.state in ENDED or trial.state == TrialState.RUNNING.value)
            if rows or moved or (trial.trial_id not in book.trials and self.wants_run(trial)):
                jobs.append((trial, rows))
        if not jobs:
            return
        with ThreadPoolExecutor(min(PARALLEL_CALLS, len(jobs)), thread_name_prefix="hpnb-mlflow") as pool:
            done = [pool.submit(self._send_trial, book, update, trial, rows) for trial, rows in jobs]
        for future in done:
            future.result()  # the first error, once every trial had its try

    def _send_trial(self, book: RunBook, update: Update, trial: TrialRecord, rows: list[ResultRow]) -> None:
        trial_id = trial.trial_id
        try:
            run_id, params = book.trials.get(trial_id), dict[str, str]()
            if run_id is None:
                run_id, params = self._start_trial(book, update, trial)
            known = book.states.get(trial_id)
            ending = not update.more and trial.state in ENDED and trial.state != known
            end = self._end_content(run_id, trial) if ending else {}
            self._send_metrics(book, trial_id, run_id, rows, params, end)
            if ending:
                terminate(self.client, run_id, TRIAL_STATUS[trial.state],
                          now_ms() if trial.end is None else int(trial.end * 1000))
            elif trial.state == TrialState.RUNNING.value and known not in (None, trial.state):
                self.client.update_run(run_id, "RUNNING")  # run again by a resume
                self._log(run_id, tags={STATE: trial.state})
            if ending or trial.state == TrialState.RUNNING.value:
                book.states[trial_id] = trial.state
        except BaseException:
            sent = book.sent.get(trial_id, 0)
            self.pending[trial_id] = [row for row in rows if row.seq > sent]  # the next push sends them
            raise

    def _start_trial(self, book: RunBook, update: Update, trial: TrialRecord) -> tuple[str, dict[str, str]]:
        """A new run for ``trial``; its id and the params its first batch carries."""
        params, cut = start_params(trial, self.names)
        tags = {**start_tags(trial, cut), "mlflow.parentRunId": book.parent, "hpnb.role": "trial",
                "hpnb.search_key": search_key(update.record), STATE: TrialState.RUNNING.value}
        start = None if trial.start is None else int(trial.start * 1000)
        run = self.client.create_run(book.experiment_id, start_time=start, tags=tags,
                                     run_name=tags["mlflow.runName"])
        book.trials[trial.trial_id] = run.info.run_id
        book.states[trial.trial_id] = TrialState.RUNNING.value
        return run.info.run_id, params

    def _send_metrics(self, book: RunBook, trial_id: int, run_id: str, rows: list[ResultRow],
                      params: dict[str, str], end: dict[str, str]) -> None:
        """The trial's reports not sent yet, in calls of at most :data:`BATCH_POINTS` points, the
        first with ``params``, the last with the ``end`` tags; each call also moves the run's
        ``hpnb.sent_seq`` to its last report, so that no point is sent twice."""
        from mlflow.entities import Metric, Param

        if len(params) > BATCH_TAGS:
            self._log(run_id, params=params)
            params = {}
        batches: list[tuple[list[Any], int]] = [([], book.sent.get(trial_id, 0))]
        for row in rows:
            if row.seq <= batches[-1][1]:
                continue
            step = row.step if row.step is not None else row.seq
            points = [Metric(key, value, int(row.time * 1000), step)
                      for key, value in metric_points(row.metrics, self.names).items()][:BATCH_POINTS]
            if len(batches[-1][0]) + len(points) > BATCH_POINTS:
                batches.append(([], batches[-1][1]))
            batches[-1][0].extend(points)
            batches[-1] = (batches[-1][0], row.seq)
        for index, (metrics, last) in enumerate(batches):
            tags = {SENT: str(last)} if last > book.sent.get(trial_id, 0) else {}
            tags.update(end if index == len(batches) - 1 else {})
            param_list = [Param(k, v) for k, v in params.items()] if index == 0 else []
            if metrics or tags or param_list:
                self.client.log_batch(run_id, metrics=metrics, params=param_list, tags=_tags(tags))
            book.sent[trial_id] = max(last, book.sent.get(trial_id, 0))

    def _end_content(self, run_id: str, trial: TrialRecord) -> dict[str, str]:
        """A trial's traceback and artifacts sent to its run; the tags of its end."""
        assert self._files is not None
        if trial.state == TrialState.FAILED.value and trial.error:
            self.client.log_text(run_id, trial.error, "error.txt")
        self._files.send_artifacts(self.client, run_id, trial.trial_id)
        return end_tags(trial, self._files.checkpoint_url(trial.checkpoint))

    # -- the search ---------------------------------------------------------------------------
    def _send_search(self, book: RunBook, update: Update) -> None:
        sent = book.parent_tags
        record, trials = update.record, update.trials
        step = finished_count(trials)
        metrics, tags = best_changes(record, trials, sent, self.names)
        front_metrics, front_tags, front_text = front_changes(record, trials, sent)
        metrics.update(front_metrics)
        tags.update(front_tags)
        tags.update({key: value for key, value in state_tags(record).items() if sent.get(key) != value})
        tags.update({f"hpnb.renamed.{new}": old[:8000] for new, old in self.names.renamed.items()
                     if f"hpnb.renamed.{new}" not in sent})
        if front_text is not None:
            self.client.log_text(book.parent, front_text, "pareto_front.json")
        if metrics or tags:
            from mlflow.entities import Metric

            self._log(book.parent, tags=tags,
                      metrics=[Metric(key, value, now_ms(), step) for key, value in metrics.items()])
            sent.update(tags)

    def _log(self, run_id: str, *, params: dict[str, str] | None = None, tags: dict[str, str] | None = None,
             metrics: list[Any] | None = None) -> None:
        """``log_batch`` in as many calls as MLflow's limits want."""
        from mlflow.entities import Param

        param_list = [Param(key, value) for key, value in (params or {}).items()]
        tag_list = _tags(tags or {})
        for index in range(max(1, math.ceil(max(len(param_list), len(tag_list)) / BATCH_TAGS))):
            part = slice(index * BATCH_TAGS, (index + 1) * BATCH_TAGS)
            self.client.log_batch(run_id, metrics=(metrics or []) if index == 0 else [],
                                  params=param_list[part], tags=tag_list[part])


def terminate(client: MlflowClient, run_id: str, status: str, end_ms: int) -> None:
    """End a run with ``status`` at ``end_ms``. MlflowClient.set_terminated would also read the run
    back and print two lines to standard output for each run (hundreds in a notebook's cell): its
    store's own update is called instead, where the client has one."""
    from mlflow.entities import RunStatus

    store = getattr(getattr(client, "_tracking_client", None), "store", None)
    if store is None or not hasattr(store, "update_run_info"):
        client.set_terminated(run_id, status, end_time=end_ms)
        return
    store.update_run_info(run_id, RunStatus.from_string(status), end_ms, None)


def _tags(tags: dict[str, str]) -> list[Any]:
    from mlflow.entities import RunTag

    return [RunTag(key, value) for key, value in tags.items()]

