"""The trial side: ``report``, ``load_checkpoint`` and ``TrialStopped``.

A trial runs inside :func:`run_trial` on a Dask worker thread (or in-process
for tests). Reports are buffered and sent to the driver in batches through a
sink; a stop check runs at most every :data:`STOP_CHECK_INTERVAL` seconds.

At a decision point of the search (a rung of ASHA, a ready step of population-based
training: :class:`~hpnb.core.decision_points.DecisionPoints`), ``report`` sends what
it holds and waits for the driver's verdict: it returns on ``continue`` and raises
:class:`TrialStopped` on ``stop``, ``pause`` or ``exploit``, so the decision lands at
that very step. The wait is bounded: with no verdict after ``verdict_timeout``
seconds (the driver is gone or stalled) the trial continues and says so in its next
batch.
Outside a search, :func:`report` does nothing and :func:`load_checkpoint`
returns None, so the same objective runs plainly.
"""

from __future__ import annotations

from typing import Any

from hpnb.core.numbers import metric_number, metric_numbers
from hpnb.runner.worker import checkpointing
from hpnb.runner.worker.trial_context import TrialContext, current


class TrialStopped(Exception):
    """Raised by :func:`report` when the driver asked the trial to stop.

    The runner catches it; an objective may catch it too to clean up, and
    then should return: the attempt ends as stopped all the same.
    """


def report(step: int | None = None, checkpoint: Any = None, **metrics: Any) -> None:
    """Report metrics of the running trial; a no-op outside a search.

    Args:
        step: the training step (epoch, iteration) these metrics belong to.
        checkpoint: any picklable object to resume from, or the path of a folder (written to
            the checkpoint store by this worker; kept: the latest ones). In a trial that spans
            several workers, rank 0's is the trial's, and the other ranks' are not written.
        **metrics: metric values, e.g. ``val_loss=0.3``.

    Raises:
        TrialStopped: the driver asked this trial to stop (early stopping, a
            click on Stop, the search stopped).

    Example:
        >>> import hpnb
        >>> hpnb.report(step=1, val_loss=0.5)  # outside a search: nothing happens
    """
    context = current()
    if context is None:
        return
    if step is not None and type(step) is not int:
        step = _step_number(step)
    clean = metric_numbers(metrics)
    send_pending(context, step)
    ref = None
    if checkpoint is not None and not context.rank:  # rank 0's checkpoint is the trial's
        ref = checkpointing.save(context, step, checkpoint)
    elif context.pending_checkpoint is not None:
        ref, context.pending_checkpoint = context.pending_checkpoint[1], None
    context.add(step, clean, ref)
    if context.stop_requested:
        context.flush()
        context.stop_raised = True
        raise TrialStopped(f"trial {context.trial_id} was asked to stop ({context.stop_reason})")


def load_checkpoint() -> Any:
    """The checkpoint this trial should resume from, or None on a fresh start.

    Set after a retry (the trial's own latest checkpoint) or a population-based
    training exploit (the donor's checkpoint). A picklable checkpoint is returned as
    the object; a folder checkpoint (:func:`hpnb.checkpoint_dir`) as the path of a local
    folder holding its files (treat it as read-only).

    Example:
        >>> import hpnb
        >>> hpnb.load_checkpoint() is None
        True
    """
    context = current()
    if context is None or not context.resume_from:
        return None
    return checkpointing.load(context)


def send_pending(context: TrialContext, step: int | None) -> None:
    """Send a folder checkpoint of another step than ``step`` (or of the attempt's end: None)
    in a row of its own, so that its step is the one recorded with it."""
    pending = context.pending_checkpoint
    if pending is not None and (step is None or pending[0] != step):
        context.pending_checkpoint = None
        context.add(pending[0], {}, pending[1])


def _step_number(step: Any) -> int:
    number = metric_number("step", step)
    if number is None or number != int(number):
        raise TypeError(f"step must be a whole number (got {step!r})")
    return int(number)
