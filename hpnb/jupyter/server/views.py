"""JSON shapes the routes return, built from store records.

Example:
    >>> from hpnb.core.store import ResultRow
    >>> result_json(ResultRow(trial_id=0, seq=1, step=0, time=1.0, value=0.5))["value"]
    0.5
"""

from __future__ import annotations

import math
import time
from typing import Any

from hpnb.core.store import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import (
    ExperimentState,
    SearchSummary,
    experiment_state,
    trial_score,
    trial_state,
    with_limit,
)


def _number(value: float | None) -> float | None:
    """JSON has no NaN or infinity: they become null."""
    if value is None or not math.isfinite(value):
        return None
    return value


def experiment_json(record: ExperimentRecord, summary: SearchSummary,
                    slots: dict[str, Any] | None = None) -> dict[str, Any]:
    """One experiment as its :func:`hpnb.core.summary.summarize` tells it (state, progress, best
    trial, whether it is active or resumable), as the sidebar shows it; with the driver's latest
    ``slots`` event, what limits its running count (``limited_by``)."""
    return {**with_limit(summary, slots).to_json(), "stop_requested": record.stop_requested}


def search_state(record: ExperimentRecord) -> ExperimentState:
    return experiment_state(record, time.time())


def trial_json(trial: TrialRecord, search: ExperimentState) -> dict[str, Any]:
    """One trial with its parameters, state (as shown: INTERRUPTED when its driver died) and scores."""
    return {
        "trial_id": trial.trial_id,
        "params": trial.params,
        "state": trial_state(trial, search),
        "start": trial.start,
        "end": trial.end,
        "value": _number(trial.value),
        "best": _number(trial.best),
        "score": _number(trial_score(trial)),
        "last_step": trial.last_step,
        "error": trial.error,
        "parent": trial.parent,
        "stop_reason": trial.stop_reason,
    }


def result_json(row: ResultRow) -> dict[str, Any]:
    """One reported result; non-finite numbers among its metrics become null."""
    metrics = {
        key: _number(value) if isinstance(value, float) else value for key, value in row.metrics.items()
    }
    return {
        "trial_id": row.trial_id,
        "seq": row.seq,
        "step": row.step,
        "time": row.time,
        "value": _number(row.value),
        "metrics": metrics,
    }
