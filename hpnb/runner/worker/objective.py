"""Calling the user's objective, and what it returns, on the worker side."""

from __future__ import annotations

import inspect
import math
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hpnb.core.numbers import metric_number, metric_numbers
from hpnb.runner.worker.reporting import TrialChannel, TrialContext, TrialStopped, set_current


@dataclass(frozen=True)
class TrialTask:
    """Everything a worker needs to run one attempt of a trial."""

    experiment: str
    trial_id: int
    attempt: int
    params: dict[str, Any]
    metric: str
    checkpoint: bytes | None = None


def takes_config(objective: Callable[..., Any], names: list[str]) -> bool:
    """Whether ``objective`` wants one ``config`` dict rather than keyword arguments.

    Example:
        >>> takes_config(lambda config: 0, ["lr"])
        True
        >>> takes_config(lambda lr, **rest: 0, ["lr", "layers"])
        False
    """
    try:
        signature = inspect.signature(objective)
    except (TypeError, ValueError):
        return False
    parameters = list(signature.parameters.values())
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return False
    keyword_names = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if names and set(names) <= keyword_names:
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 1 and all(p.default is not p.empty for p in positional[1:])


def call_objective(objective: Callable[..., Any], params: dict[str, Any]) -> Any:
    """Call ``objective`` as ``f(**params)`` or ``f(config)``, whichever it takes."""
    if takes_config(objective, list(params)):
        return objective(dict(params))
    return objective(**params)


def returned_metrics(value: Any, metric: str) -> dict[str, Any]:
    """The metrics an objective's return value stands for.

    Raises:
        TypeError: for a return value that is neither a number, a mapping nor None.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return metric_numbers(value)
    try:
        return {metric: metric_number(metric, value)}
    except TypeError:
        raise TypeError(
            f"the objective returned a {type(value).__name__}; return a number, a dict of metrics, or None "
            "after hpnb.report(...)"
        ) from None


def target_problem(metrics: Mapping[str, Any], metric: str) -> str | None:
    """Why ``metrics`` cannot score a trial (missing or non-finite target), or None."""
    if metric not in metrics:
        known = ", ".join(sorted(metrics)) or "none"
        return f"the objective did not report the target metric {metric!r} (reported: {known})"
    value = metrics[metric]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"the target metric {metric!r} is not a finite number (got {value!r})"
    return None


def run_trial(objective: Callable[..., Any], task: TrialTask, channel: TrialChannel) -> dict[str, Any]:
    """Run one attempt of a trial; never raises for the objective's own errors.

    Returns:
        ``{"status": "ok" | "stopped" | "failed", "metrics": {...}, "last_seq": n,
        "error": traceback or None}``.
    """
    context = TrialContext(task.experiment, task.trial_id, task.attempt, channel, task.checkpoint)
    set_current(context)
    status, error, returned = "ok", None, None
    try:
        returned = call_objective(objective, task.params)
    except TrialStopped:
        status = "stopped"
    except BaseException:  # KeyboardInterrupt, SystemExit and the like from user code fail the trial only
        status, error = "failed", traceback.format_exc()
    finally:
        try:
            context.flush()
        finally:
            set_current(None)
    metrics = dict(context.last_metrics)
    if status == "ok":
        try:
            metrics.update(returned_metrics(returned, task.metric))
        except TypeError as exc:
            status, error = "failed", f"TypeError: {exc}"
    return {"status": status, "metrics": metrics, "last_seq": context.seq, "error": error}
