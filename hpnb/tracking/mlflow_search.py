"""What the parent run of a search holds in MLflow.

- params: the objective(s), the strategy, the budget the spec asked for, parallel trials, seed,
  early stopping, resources, retries, limits and the space; the spec itself as ``spec.yaml``;
- tags: ``hpnb.state`` and ``hpnb.message`` (the search's), ``hpnb.budget`` (after an extend);
- one objective: the metric ``best_<metric>`` (at step = trials finished) each time the best
  changes, with tags ``hpnb.best_trial`` and ``best.<parameter>``;
- several objectives: the metric ``pareto_front_size``, the tag ``hpnb.pareto_front`` (the
  trial ids on the front) and the artifact ``pareto_front.json`` (their values and parameters).

Example:
    >>> search_params(record)["strategy"]   # doctest: +SKIP
    'tpe'
"""

from __future__ import annotations

import json
import time
from typing import Any

import yaml

from hpnb.core.spec.experiment import described
from hpnb.core.store import ExperimentRecord, TrialRecord
from hpnb.core.summary import front_entry, pareto_front, record_best, record_objectives
from hpnb.core.trial import TrialState
from hpnb.tracking.names import MetricNames, param_value, text_value

#: MLflow's status of a search that ended in each hpnb state.
RUN_STATUS = {"COMPLETED": "FINISHED", "FAILED": "FAILED", "STOPPED": "KILLED", "INTERRUPTED": "KILLED"}
_FINISHED = (TrialState.COMPLETED.value, TrialState.STOPPED.value, TrialState.FAILED.value)


def search_params(record: ExperimentRecord) -> dict[str, str]:
    """The parent run's params (each cut to MLflow's limit, see :mod:`hpnb.tracking.names`)."""
    spec = record.spec
    objectives = record_objectives(record)
    strategy = dict(spec.get("strategy") or {"name": record.strategy})
    stopping = dict(spec.get("early_stopping") or {"rule": "none"})
    raw: dict[str, Any] = {
        "objectives": ", ".join(f"{o.name} ({o.mode})" for o in objectives),
        "metric": record.metric,
        "mode": record.mode,
        "strategy": described(str(strategy.pop("name", record.strategy)), strategy),
        "trials": spec.get("trials", record.budget),
        "parallel": spec.get("parallel"),
        "seed": spec.get("seed"),
        "early_stopping": described(str(stopping.pop("rule", "none")), stopping),
        "resources": spec.get("resources"),
        "retries": spec.get("retries"),
        "max_failures": spec.get("max_failures"),
        "timeout": spec.get("timeout"),
        "trial_timeout": spec.get("trial_timeout"),
        "parameters": spec.get("parameters"),
    }
    return {key: param_value(value) for key, value in raw.items() if value is not None}


def spec_yaml(record: ExperimentRecord) -> str:
    """The search's spec as YAML (safe-dumped), as the artifact ``spec.yaml``."""
    return str(yaml.safe_dump(record.spec, sort_keys=False, allow_unicode=True))


def finished_count(trials: tuple[TrialRecord, ...]) -> int:
    return sum(trial.state in _FINISHED for trial in trials)


def best_changes(record: ExperimentRecord, trials: tuple[TrialRecord, ...], sent: dict[str, str],
                 names: MetricNames) -> tuple[dict[str, float], dict[str, str]]:
    """The parent's metrics and tags for the best trial, when it differs from what ``sent`` has."""
    best = record_best(record, trials)
    if best is None:
        return {}, {}
    tags = {"hpnb.best_trial": str(best.trial.trial_id), "hpnb.best_value": repr(float(best.value))}
    if all(sent.get(key) == value for key, value in tags.items()):
        return {}, {}
    for name, value in best.trial.params.items():
        tags[f"best.{names.safe(name)}"] = param_value(value, 8000)
    return {f"best_{names.safe(record.metric)}": float(best.value)}, tags


def front_changes(record: ExperimentRecord, trials: tuple[TrialRecord, ...],
                  sent: dict[str, str]) -> tuple[dict[str, float], dict[str, str], str | None]:
    """With several objectives: the parent's metric, tag and ``pareto_front.json`` text when the
    front differs from what ``sent`` has; nothing with one objective."""
    objectives = record_objectives(record)
    if len(objectives) < 2:
        return {}, {}, None
    front = pareto_front(list(trials), objectives)
    ids = ",".join(str(trial.trial_id) for trial in front)
    if sent.get("hpnb.pareto_front") == ids or not front:
        return {}, {}, None
    entries = [front_entry(trial, objectives) for trial in front]
    text = json.dumps({"objectives": [o.to_dict() for o in objectives], "front": entries},
                      indent=2, default=text_value)
    return {"pareto_front_size": float(len(front))}, {"hpnb.pareto_front": ids[:8000]}, text


def state_tags(record: ExperimentRecord) -> dict[str, str]:
    """The tags that follow the search's state, message and budget."""
    tags = {"hpnb.state": record.state, "hpnb.budget": str(record.budget)}
    if record.message:
        tags["hpnb.message"] = record.message[:8000]
    return tags


def now_ms() -> int:
    return int(time.time() * 1000)
