"""Calling the user's objective, and what it returns, on the worker side."""

from __future__ import annotations

import inspect
import math
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.numbers import metric_number, metric_numbers
from hpnb.runner.checkpoint_store import CheckpointLocation
from hpnb.runner.ranks.gang import Gang
from hpnb.runner.worker.capture import capturing
from hpnb.runner.worker.reporting import TrialStopped, send_pending
from hpnb.runner.worker.trial_context import TrialChannel, TrialContext, set_current
from hpnb.runner.worker.trial_info import upload_trial_dir


@dataclass(frozen=True)
class TrialTask:
    """Everything a worker needs to run one attempt of a trial."""

    experiment: str
    trial_id: int
    attempt: int
    params: dict[str, Any]
    metric: str
    #: the reference of the checkpoint to resume from (in ``checkpoints``), None on a fresh start.
    checkpoint: str | None = None
    #: where the trial waits for the driver's verdict (the search's rules and strategy).
    decision_points: DecisionPoints = field(default_factory=DecisionPoints)
    #: the step the attempt continues from (its checkpoint's), None on a fresh start.
    start_step: int | None = None
    #: seconds a trial waits for a verdict before it continues on its own.
    verdict_timeout: float = 10.0
    #: every objective's metric, ``metric`` first, when the search has several.
    objectives: tuple[str, ...] = ()
    #: the search's place in the checkpoint store (None: a folder in the temp dir).
    checkpoints: CheckpointLocation | None = None
    #: older checkpoints to fall back on when ``checkpoint`` is gone, newest first: (reference, step).
    fallback: tuple[tuple[str, int | None], ...] = ()
    #: the ranks of a trial that spans several workers (None: one process runs it), and this one's.
    gang: Gang | None = None
    rank: int = 0

    def resume_from(self) -> tuple[tuple[str, int | None], ...]:
        """Every checkpoint the attempt may resume from, newest first."""
        return ((self.checkpoint, self.start_step), *self.fallback) if self.checkpoint else ()


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


def returned_metrics(value: Any, metric: str, objectives: tuple[str, ...] = ()) -> dict[str, Any]:
    """The metrics an objective's return value stands for: a dict as it is, a number for ``metric``,
    and, in a search with several ``objectives``, a tuple or list of one value per objective.

    Example:
        >>> returned_metrics((0.25, 12), "loss", ("loss", "latency_ms"))
        {'loss': 0.25, 'latency_ms': 12}

    Raises:
        TypeError: for a return value that is neither a number, a mapping nor None, or a
            tuple that does not hold one value per objective.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return metric_numbers(value)
    if len(objectives) > 1 and isinstance(value, (tuple, list)):
        if len(value) != len(objectives):
            raise TypeError(f"the objective returned {len(value)} values for {len(objectives)} objectives "
                            f"({', '.join(objectives)}); return one value per objective, or a dict")
        return metric_numbers(dict(zip(objectives, value, strict=True)))
    try:
        return {metric: metric_number(metric, value)}
    except TypeError:
        raise TypeError(
            f"the objective returned a {type(value).__name__}; return a number, a dict of metrics, or None "
            "after hpnb.report(...)"
        ) from None


def target_problem(metrics: Mapping[str, Any], metric: str, others: tuple[str, ...] = ()) -> str | None:
    """Why ``metrics`` cannot score a trial (a target missing or not finite: ``metric``, or any of
    a search's several objectives, ``others``), or None."""
    for name in others or (metric,):
        if name not in metrics:
            known = ", ".join(sorted(metrics)) or "none"
            return f"the objective did not report the target metric {name!r} (reported: {known})"
        value = metrics[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"the target metric {name!r} is not a finite number (got {value!r})"
    return None


def run_trial(objective: Callable[..., Any], task: TrialTask, channel: TrialChannel) -> dict[str, Any]:
    """Run one attempt of a trial; never raises for the objective's own errors.

    Returns:
        ``{"status": "ok" | "stopped" | "failed", "metrics": {...}, "last_seq": n,
        "error": traceback or None, "log": what it printed}`` (``log``: a message of
        :meth:`~hpnb.core.trial_output.TrialOutput.to_message`, see :mod:`~hpnb.runner.worker.capture`).
    """
    context = TrialContext(task.experiment, task.trial_id, task.attempt, channel, task.resume_from(),
                           task.checkpoints, dict(task.params), decision_points=task.decision_points,
                           last_step=task.start_step, verdict_timeout=task.verdict_timeout)
    set_current(context)
    status, error, returned = "ok", None, None
    with capturing(task.experiment, task.trial_id, task.attempt) as captured:
        try:
            returned = call_objective(objective, task.params)
        except TrialStopped:
            status = "stopped"
        except BaseException:  # KeyboardInterrupt, SystemExit and the like from user code fail the trial only
            status, error = "failed", traceback.format_exc()
        finally:
            try:
                send_pending(context, None)  # a folder checkpoint no report went with
                if not context.rank:  # rank 0's folder is the trial's
                    upload_trial_dir(context)
                context.flush()
            finally:
                set_current(None)
    if status == "ok" and context.stop_raised:  # the objective caught the stop and returned
        status = "stopped"
    metrics = dict(context.last_metrics)
    if status == "ok":
        try:
            metrics.update(returned_metrics(returned, task.metric, task.objectives))
        except TypeError as exc:
            status, error = "failed", f"TypeError: {exc}"
    return {"status": status, "metrics": metrics, "last_seq": context.seq, "error": error,
            "log": captured.output(task.attempt).to_message()}
