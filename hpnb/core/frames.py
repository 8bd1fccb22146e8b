"""pandas views of stored experiments: one row per trial, the long history, leaderboards.

Times (``start``, ``end``, ``created``, ``time``) are timezone-aware UTC
timestamps; ``duration`` is in seconds. Parameters become columns named as in
the spec; a parameter (or metric) whose name is already a standard column gets
a ``param_`` (``metric_``) prefix.

Example:
    >>> from hpnb.core.store import ExperimentRecord, TrialRecord
    >>> exp = ExperimentRecord(1, "demo", {}, None, "COMPLETED", 2, 1, "loss", "min", "grid",
    ...                        0.0, 0.0, None, False, None, None, None)
    >>> runs = [(0.1, 0.5), (0.01, 0.2)]
    >>> trials = [TrialRecord(1, i, {"lr": lr}, "COMPLETED", 0.0, 2.0, None, None, 0, None, 3,
    ...                       v, v, {"loss": v}, None, None) for i, (lr, v) in enumerate(runs)]
    >>> leaderboard(exp, trials)[["trial_id", "lr", "value"]].to_dict("records")
    [{'trial_id': 1, 'lr': 0.01, 'value': 0.2}, {'trial_id': 0, 'lr': 0.1, 'value': 0.5}]
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from hpnb.core.analysis.humane_time import clock_time
from hpnb.core.constraints import is_feasible, record_constraints
from hpnb.core.store.records import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import (
    SearchSummary,
    experiment_state,
    pareto_front,
    pareto_ranks,
    ranked,
    record_best,
    record_objectives,
    trial_state,
)

#: the columns of :func:`results_frame` besides the parameters, in order.
TRIAL_COLUMNS = (
    "trial_id", "state", "value", "best", "steps", "start", "end", "duration",
    "worker", "error", "retries", "parent",
)  # fmt: skip
#: the columns of :func:`history_frame` besides the metrics, in order.
HISTORY_COLUMNS = ("trial_id", "seq", "step", "time", "value")


def error_summary(error: str | None) -> str | None:
    """The line of an error text that says what went wrong.

    For a Python traceback that is its last line (the exception); otherwise the first line.

    Example:
        >>> error_summary("Traceback (most recent call last):\\n  File 'x', line 1\\nValueError: bad lr\\n")
        'ValueError: bad lr'
    """
    if not error:
        return None
    lines = [line for line in error.strip().splitlines() if line.strip()]
    if not lines:
        return None
    if lines[0].startswith("Traceback (most recent call last)"):
        return lines[-1].strip()
    return lines[0].strip()


def _column_names(names: Iterable[str], taken: Iterable[str], prefix: str) -> dict[str, str]:
    """Map each name to a column name that does not clash with ``taken`` or the other names."""
    names = list(dict.fromkeys(names))
    used = set(taken)
    columns: dict[str, str] = {}
    for name in names:
        column = name
        while column in used:
            column = prefix + column
        used.add(column)
        columns[name] = column
    return columns


def parameter_names(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[str]:
    """Parameter names in the order of the spec, then any others in the order trials first used them."""
    declared = experiment.spec.get("parameters") if isinstance(experiment.spec, dict) else None
    names: list[str] = []
    if isinstance(declared, dict):
        names.extend(str(name) for name in declared)
    elif isinstance(declared, list):  # a Katib-style list of {name: ..., ...}
        names.extend(str(item["name"]) for item in declared if isinstance(item, dict) and "name" in item)
    for trial in trials:
        names.extend(trial.params)
    return list(dict.fromkeys(names))


def _timestamps(values: Sequence[float | None]) -> pd.Series:
    numbers = pd.Series([math.nan if v is None else v for v in values], dtype="float64")
    return pd.to_datetime(numbers, unit="s", utc=True)


def results_frame(experiment: ExperimentRecord, trials: Sequence[TrialRecord],
                  now: float | None = None) -> pd.DataFrame:
    """One row per trial, sorted by trial id: its state, parameters, target values, timing and errors.

    States are as :mod:`hpnb.core.summary` shows them at ``now`` (default: the current time):
    a trial a dead driver left RUNNING is INTERRUPTED. A parameter a trial did not have (inactive
    under a ``when:`` of a conditional space) is NaN in a numeric column, missing in others.
    A search with several objectives also has a column per objective (its latest value) and
    ``pareto_rank`` (0: on the Pareto front; missing without every objective's value). A search
    with constraints has ``feasible`` (whether the trial satisfies them all, from its last values).
    """
    search = experiment_state(experiment, time.time() if now is None else now)
    trials = sorted(trials, key=lambda t: t.trial_id)
    params = _column_names(parameter_names(experiment, trials), TRIAL_COLUMNS, "param_")
    start = _timestamps([t.start for t in trials])
    end = _timestamps([t.end for t in trials])
    data: dict[str, Any] = {
        "trial_id": pd.Series([t.trial_id for t in trials], dtype="int64"),
        "state": pd.Series([trial_state(t, search) for t in trials], dtype="object"),
    }
    for name, column in params.items():
        data[column] = pd.Series([t.params.get(name) for t in trials], dtype="object").infer_objects()
    data.update(
        value=pd.Series([t.value for t in trials], dtype="float64"),
        best=pd.Series([t.best for t in trials], dtype="float64"),
        steps=pd.Series([t.last_step for t in trials], dtype="Int64"),
        start=start,
        end=end,
        duration=(end - start).dt.total_seconds(),
        worker=pd.Series([t.worker for t in trials], dtype="object"),
        error=pd.Series([error_summary(t.error) for t in trials], dtype="object"),
        retries=pd.Series([t.retries for t in trials], dtype="int64"),
        parent=pd.Series([t.parent for t in trials], dtype="Int64"),
    )
    data.update(_objective_columns(experiment, trials, taken=[*data]))
    constraints = record_constraints(experiment)
    if constraints:
        name = _column_names(["feasible"], [*data], "metric_")["feasible"]
        data[name] = pd.Series([is_feasible(t, constraints) for t in trials], dtype="bool")
    return pd.DataFrame(data)


def _objective_columns(experiment: ExperimentRecord, trials: Sequence[TrialRecord],
                       taken: Sequence[str]) -> dict[str, pd.Series]:
    """With several objectives: each objective's value and the Pareto rank; nothing otherwise."""
    objectives = record_objectives(experiment)
    if len(objectives) < 2:
        return {}
    names = _column_names([o.name for o in objectives] + ["pareto_rank"], taken, "metric_")
    columns = {names[o.name]: pd.Series([t.metrics.get(o.name) for t in trials], dtype="float64")
               for o in objectives}
    ranks = pareto_ranks(trials, objectives, record_constraints(experiment))
    columns[names["pareto_rank"]] = pd.Series([ranks.get(t.trial_id) for t in trials], dtype="Int64")
    return columns


def pareto_frame(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> pd.DataFrame:
    """The rows of :func:`results_frame` of the trials on the Pareto front, best first on the first
    objective (a search with one objective: its best trial)."""
    objectives, constraints = record_objectives(experiment), record_constraints(experiment)
    if len(objectives) > 1:
        front = pareto_front(trials, objectives, constraints)
    else:
        best = record_best(experiment, trials)
        front = [] if best is None else [best.trial]
    order = [t.trial_id for t in front]
    frame = results_frame(experiment, trials).set_index("trial_id", drop=False)
    return frame.loc[order].reset_index(drop=True)


def history_frame(rows: Sequence[ResultRow]) -> pd.DataFrame:
    """Every reported result, long format: trial_id, seq, step, time, value, then one column per metric."""
    rows = sorted(rows, key=lambda r: (r.trial_id, r.seq))
    metrics = _column_names((name for row in rows for name in row.metrics), HISTORY_COLUMNS, "metric_")
    data: dict[str, Any] = {
        "trial_id": pd.Series([r.trial_id for r in rows], dtype="int64"),
        "seq": pd.Series([r.seq for r in rows], dtype="int64"),
        "step": pd.Series([r.step for r in rows], dtype="Int64"),
        "time": _timestamps([r.time for r in rows]),
        "value": pd.Series([r.value for r in rows], dtype="float64"),
    }
    for name, column in metrics.items():
        data[column] = pd.Series([r.metrics.get(name) for r in rows], dtype="object").infer_objects()
    return pd.DataFrame(data)


def leaderboard(
    experiment: ExperimentRecord, trials: Sequence[TrialRecord], top: int | None = None
) -> pd.DataFrame:
    """:func:`results_frame` in rank order (:func:`hpnb.core.summary.ranked`): best first, unscored last."""
    order = [t.trial_id for t in ranked(trials, record_objectives(experiment),
                                                  record_constraints(experiment))]
    frame = results_frame(experiment, trials).set_index("trial_id", drop=False)
    board = frame.loc[order].reset_index(drop=True)
    return board if top is None else board.head(top)


def experiments_frame(summaries: Sequence[SearchSummary]) -> pd.DataFrame:
    """One row per search: name, owner, state, strategy, progress (finished/budget), best, created; and
    ``front`` (the size of its Pareto front) when a search has several objectives."""
    columns: dict[str, pd.Series] = {
        "name": pd.Series([s.name for s in summaries], dtype="object"),
        "owner": pd.Series([s.owner or "-" for s in summaries], dtype="object"),
        "state": pd.Series([s.state.value for s in summaries], dtype="object"),
        "strategy": pd.Series([s.strategy for s in summaries], dtype="object"),
        "progress": pd.Series([f"{s.done}/{s.budget}" for s in summaries], dtype="object"),
        "best": pd.Series([s.best_value for s in summaries], dtype="float64"),
    }
    if any(s.is_multi_objective for s in summaries):
        columns["front"] = pd.Series([s.front_size if s.is_multi_objective else None for s in summaries],
                                     dtype="Int64")
    columns["created"] = _timestamps([s.created for s in summaries])
    return pd.DataFrame(columns)


def experiments_table(summaries: Sequence[SearchSummary], now: float | None = None) -> pd.DataFrame:
    """:func:`experiments_frame` for people to read: ``created`` as a clock time (``04:49`` today,
    ``Nov 30 14:02`` before; local time, :func:`hpnb.core.analysis.humane_time.clock_time`)."""
    frame = experiments_frame(summaries)
    frame["created"] = pd.Series([clock_time(s.created, now=now) for s in summaries], dtype="object")
    return frame
