"""What every framework callback does at the end of a step: report, keep state, learn of a stop.

The callbacks of :mod:`hpnb.integrations` call only these functions, so how a framework's
state is kept (today a pickled object through :func:`hpnb.report`'s ``checkpoint``) is
decided here alone.

Example:
    >>> report_step(3, {"val_loss": 0.25}, state={"weights": [1.0]})  # outside a search: go on
    False
    >>> saved_state() is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.runner.worker.reporting import TrialStopped, load_checkpoint, report
from hpnb.runner.worker.trial_context import current


def in_search() -> bool:
    """Whether this thread runs a trial of a search."""
    return current() is not None


def report_step(step: int, metrics: Mapping[str, Any], state: Any = None) -> bool:
    """Report ``metrics`` of ``step`` (with ``state`` to resume from, when given).

    Returns:
        True when the search stopped the trial: the caller ends its training at once.
    """
    try:
        report(step=step, checkpoint=state, **dict(metrics))
    except TrialStopped:
        return True
    return False


def saved_state() -> Any:
    """The state this attempt resumes from (its own, or a donor's after an exploit), or None."""
    return load_checkpoint()


def missing_monitor(monitor: str | None, metrics: Mapping[str, Any], framework: str) -> str | None:
    """A sentence saying that ``monitor`` is not among ``metrics``, or None."""
    if monitor is None or monitor in metrics:
        return None
    known = ", ".join(sorted(metrics)) or "none"
    return (f"{framework} logged no metric {monitor!r} at this step (it logged: {known}); "
            "pass the name it logs as monitor=, or give the training validation data")
