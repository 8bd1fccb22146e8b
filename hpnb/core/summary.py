"""One summary of a search: its state, progress, best trial and whether it is alive.

Every front end (the ``Search`` handle, the command line, the notebook
dashboard, the REST routes and so the JupyterLab sidebar) renders what this
module computes from store records, so they all name the same state and the
same best trial.

- **State**: the stored state, except that a search stored as RUNNING whose
  driver has not written a heartbeat for :data:`STALE_AFTER` seconds is
  INTERRUPTED (its driver died: a killed kernel, a closed laptop), whatever host
  reads it.
- **Score** of a trial: its latest value of the target metric (for a finished
  trial, its final one); a FAILED trial has none. **Rank**: by score (``mode``),
  trials without one last, ties to the lower trial id. **Best trial**: the first
  in rank with a score.
- Trials a dead driver left RUNNING are shown as INTERRUPTED, never as running.

Example:
    >>> from hpnb.core.store import ExperimentRecord
    >>> record = ExperimentRecord(1, "demo", {}, None, "RUNNING", 10, None, "loss", "min", "random",
    ...                           0.0, 5.0, None, False, None, None, "host:1", heartbeat=5.0)
    >>> experiment_state(record, now=6.0), experiment_state(record, now=60.0)
    (<ExperimentState.RUNNING: 'RUNNING'>, <ExperimentState.INTERRUPTED: 'INTERRUPTED'>)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hpnb.core.store.records import ExperimentRecord, TrialRecord
from hpnb.core.store.store import Store
from hpnb.core.trial import TrialState

#: seconds between two heartbeats of a running driver.
HEARTBEAT_INTERVAL = 2.0
#: a RUNNING search whose last heartbeat is older than this is INTERRUPTED.
STALE_AFTER = 3 * HEARTBEAT_INTERVAL


class ExperimentState(str, Enum):
    """The state of a search, as every front end shows it."""

    CREATED = "CREATED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    INTERRUPTED = "INTERRUPTED"

    @property
    def is_active(self) -> bool:
        """Whether a driver works on it right now (a Stop button makes sense)."""
        return self in (ExperimentState.CREATED, ExperimentState.RUNNING)

    @property
    def is_resumable(self) -> bool:
        """Whether ``resume`` can continue it (or extend it)."""
        return not self.is_active


def experiment_state(record: ExperimentRecord, now: float) -> ExperimentState:
    """The state of ``record`` at ``now`` (epoch seconds), judging liveness by heartbeat."""
    state = ExperimentState(record.state)
    if state is ExperimentState.RUNNING and not driver_alive(record, now):
        return ExperimentState.INTERRUPTED
    return state


def heartbeat_age(record: ExperimentRecord, now: float) -> float:
    """Seconds since the driver of ``record`` last said it was alive (a store written before
    heartbeats existed: since the record last changed)."""
    return now - (record.heartbeat if record.heartbeat is not None else record.updated)


def driver_alive(record: ExperimentRecord, now: float) -> bool:
    """Whether the driver of ``record`` wrote a heartbeat lately."""
    return heartbeat_age(record, now) <= STALE_AFTER


def trial_state(trial: TrialRecord, search: ExperimentState) -> str:
    """The state to show for ``trial``: RUNNING and PENDING trials of a search whose driver
    died are INTERRUPTED (a resume runs them again)."""
    unfinished = trial.state in (TrialState.RUNNING.value, TrialState.PENDING.value)
    if unfinished and search is ExperimentState.INTERRUPTED:
        return ExperimentState.INTERRUPTED.value
    return trial.state


def trial_score(trial: TrialRecord) -> float | None:
    """The number a trial is ranked by: its latest target value; None when failed or not finite."""
    value = trial.value
    if trial.state == TrialState.FAILED.value or value is None or not math.isfinite(value):
        return None
    return value


def ranked(trials: Iterable[TrialRecord], mode: str) -> list[TrialRecord]:
    """Trials best first for ``mode`` ("min" or "max"); unscored last; ties to the lower id."""
    sign = -1.0 if mode == "max" else 1.0

    def key(trial: TrialRecord) -> tuple[int, float, int]:
        score = trial_score(trial)
        return (1, 0.0, trial.trial_id) if score is None else (0, sign * score, trial.trial_id)

    return sorted(trials, key=key)


def best_trial(trials: Iterable[TrialRecord], mode: str) -> TrialRecord | None:
    """The best-ranked trial with a score, or None."""
    order = ranked(trials, mode)
    return order[0] if order and trial_score(order[0]) is not None else None


@dataclass(frozen=True)
class SearchSummary:
    """What every front end shows of a search."""

    name: str
    state: ExperimentState
    metric: str
    mode: str
    strategy: str
    budget: int
    parallel: int | None
    counts: dict[str, int]
    created: float
    updated: float
    elapsed: float
    message: str | None
    driver: str | None
    best_trial: int | None = None
    best_value: float | None = None
    best_params: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> int:
        """Trials that ended: completed, stopped or failed."""
        return sum(self.counts.get(s.value, 0) for s in TrialState if s.is_finished)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the REST routes, ``hpnb list --json``)."""
        best = None if self.best_trial is None else {
            "trial_id": self.best_trial, "value": self.best_value, "params": self.best_params}
        return {
            "name": self.name, "state": self.state.value, "active": self.state.is_active,
            "resumable": self.state.is_resumable, "metric": self.metric, "mode": self.mode,
            "strategy": self.strategy, "budget": self.budget, "parallel": self.parallel,
            "done": self.done, **{state.lower(): n for state, n in self.counts.items()},
            "best": best, "created": self.created, "updated": self.updated, "elapsed": self.elapsed,
            "message": self.message, "driver": self.driver,
        }


def summarize(record: ExperimentRecord, trials: Sequence[TrialRecord], now: float) -> SearchSummary:
    """The summary of ``record`` with its ``trials`` at ``now`` (epoch seconds)."""
    state = experiment_state(record, now)
    counts = {s.value: 0 for s in TrialState} | {ExperimentState.INTERRUPTED.value: 0}
    for trial in trials:
        shown = trial_state(trial, state)
        counts[shown] = counts.get(shown, 0) + 1
    end = now if state.is_active else max(record.updated, record.created)
    best = best_trial(trials, record.mode)
    return SearchSummary(
        name=record.name, state=state, metric=record.metric, mode=record.mode, strategy=record.strategy,
        budget=record.budget, parallel=record.parallel, counts=counts, created=record.created,
        updated=record.updated, elapsed=max(0.0, end - record.created), message=record.message,
        driver=record.driver, best_trial=None if best is None else best.trial_id,
        best_value=None if best is None else trial_score(best),
        best_params={} if best is None else dict(best.params),
    )


def store_summaries(store: Store, now: float) -> list[SearchSummary]:
    """The summary of every search in ``store``, newest first."""
    return [summarize(record, store.trials(record.id), now) for record in store.experiments()]
