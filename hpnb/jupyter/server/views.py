"""JSON shapes the routes return, built from store records.

Example:
    >>> from hpnb.core.store import ResultRow
    >>> result_json(ResultRow(trial_id=0, seq=1, step=0, time=1.0, value=0.5))["value"]
    0.5
"""

from __future__ import annotations

import math
from typing import Any

from hpnb.core.store import ExperimentRecord, ExperimentStats, ResultRow, TrialRecord


def _number(value: float | None) -> float | None:
    """JSON has no NaN or infinity: they become null."""
    if value is None or not math.isfinite(value):
        return None
    return value


def trial_score(trial: TrialRecord) -> float | None:
    """What the leaderboard ranks a trial by: its best value seen, else its final value."""
    return _number(trial.best if trial.best is not None else trial.value)


def best_trial(trials: list[TrialRecord], mode: str) -> TrialRecord | None:
    """The trial with the best score for ``mode`` ("min" or "max"); ties go to the lower id."""
    scored = [trial for trial in trials if trial_score(trial) is not None]
    if not scored:
        return None
    sign = -1.0 if mode == "max" else 1.0
    return min(scored, key=lambda trial: (sign * (trial_score(trial) or 0.0), trial.trial_id))


def experiment_json(
    record: ExperimentRecord, stats: ExperimentStats | None, trials: list[TrialRecord]
) -> dict[str, Any]:
    """One experiment with its progress and best trial, as the sidebar shows it."""
    counts = stats.counts if stats is not None else {}
    best = best_trial(trials, record.mode)
    return {
        "name": record.name,
        "state": record.state,
        "strategy": record.strategy,
        "metric": record.metric,
        "mode": record.mode,
        "budget": record.budget,
        "parallel": record.parallel,
        "done": stats.finished if stats is not None else 0,
        "running": counts.get("RUNNING", 0),
        "pending": counts.get("PENDING", 0),
        "failed": counts.get("FAILED", 0),
        "stopped": counts.get("STOPPED", 0),
        "best": None
        if best is None
        else {"trial_id": best.trial_id, "value": trial_score(best), "params": best.params},
        "created": record.created,
        "updated": record.updated,
        "message": record.message,
        "stop_requested": record.stop_requested,
    }


def trial_json(trial: TrialRecord) -> dict[str, Any]:
    """One trial with its parameters, state and scores."""
    return {
        "trial_id": trial.trial_id,
        "params": trial.params,
        "state": trial.state,
        "start": trial.start,
        "end": trial.end,
        "value": _number(trial.value),
        "best": _number(trial.best),
        "score": trial_score(trial),
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
