"""Why a trial cannot be paused or resumed now: checked by a sender before a command leaves, and
by the driver where it decides.

Example:
    >>> no_checkpoint_reason(3).split(",")[0]
    'trial 3 has no checkpoint yet'
"""

from __future__ import annotations

from hpnb.core.store import TrialRecord
from hpnb.core.trial import TrialState


def no_checkpoint_reason(trial_id: int) -> str:
    """Why a trial without a checkpoint is not paused (it would lose its steps)."""
    return (f"trial {trial_id} has no checkpoint yet, and a paused trial resumes from its latest "
            "checkpoint: report one with hpnb.report(..., checkpoint=...) and load it with "
            "hpnb.load_checkpoint() at the start of the objective")


def pause_problem(trial: TrialRecord) -> str | None:
    """Why ``trial`` cannot be paused now, or None.

    Example:
        >>> from hpnb.core.store import TrialRecord
        >>> done = TrialRecord(experiment_id=1, trial_id=7, params={}, state=TrialState.COMPLETED.value,
        ...                    start=None,
        ...                    end=None, worker=None, error=None, retries=0, parent=None, last_step=3,
        ...                    value=0.1, best=0.1, metrics={}, checkpoint=None, stop_reason=None)
        >>> pause_problem(done)
        'trial 7 is COMPLETED: only a running or pending trial can be paused'
    """
    if trial.state == TrialState.PAUSED.value:
        return f"trial {trial.trial_id} is paused already"
    if trial.state not in (TrialState.RUNNING.value, TrialState.PENDING.value):
        return f"trial {trial.trial_id} is {trial.state}: only a running or pending trial can be paused"
    if trial.state == TrialState.RUNNING.value and not trial.checkpoint:
        return no_checkpoint_reason(trial.trial_id)
    return None


def resume_problem(trial: TrialRecord) -> str | None:
    """Why ``trial`` cannot be resumed, or None (only a paused trial can)."""
    if trial.state != TrialState.PAUSED.value:
        return f"trial {trial.trial_id} is {trial.state}, not PAUSED: there is nothing to resume"
    return None
