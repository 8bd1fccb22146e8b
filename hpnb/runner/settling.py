"""How an ended attempt settles its trial: completed, stopped, failed, parked as paused, or run again.

A part of the driver (:mod:`hpnb.runner.driver`), on its thread. The driver hands each
attempt's end here (its outcome, or the reason it was lost); the trial's end itself is
recorded by :class:`hpnb.runner.ending.TrialEnds`.

Example:
    >>> settling = Settling(context, pauses, ends)  # doctest: +SKIP
    >>> settling.settle(trial, done)  # doctest: +SKIP
"""

from __future__ import annotations

from hpnb.core.trial import TrialState
from hpnb.runner.context import BUDGET_REACHED, DriverContext
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.ending import TrialEnds
from hpnb.runner.executor import PORT_TAKEN, AttemptDone
from hpnb.runner.pausing import Pauses
from hpnb.runner.shared_objective import SHARED_COPY_MISSING
from hpnb.runner.worker.objective import target_problem

#: times an attempt lost before it started is run again without counting as a retry.
MAX_LOST_QUEUED = 3


#: why a started trial is retried when its worker died holding the objective's only copy.
WORKER_DIED_WITH_COPY = ("the worker running this trial died (the scheduler started it again elsewhere, "
                         "where the objective's copy it held was gone)")


class Settling:
    """The ends of one search's attempts."""

    def __init__(self, context: DriverContext, pauses: Pauses, ends: TrialEnds) -> None:
        self.context = context
        self.pauses = pauses
        self.ends = ends

    def settle(self, trial: DrivenTrial, done: AttemptDone) -> None:
        """Turn an ended attempt into a final trial state, or a retry."""
        c = self.context
        if done.outcome is None:
            c.writer.lost_output(trial.trial_id, done.attempt, done.worker or trial.worker,
                                 done.reason or "lost")
        if trial.timed_out is not None and (done.outcome is None or done.outcome.get("status") != "ok"):
            self.fail_or_retry(trial, trial.timed_out, done.worker)
            return
        status = None if done.outcome is None else done.outcome.get("status")
        if trial.pausing is not None and status in (None, "stopped") and trial.attempt_started:
            self.pauses.park(trial, trial.pausing)  # a worker lost meanwhile loses nothing either
            return
        if done.outcome is None:
            self._lost(trial, done)
            return
        outcome = done.outcome
        metrics = {**trial.metrics, **outcome.get("metrics", {})}
        budget_used = (trial.stop_reason or "").startswith(BUDGET_REACHED)
        if status == "stopped" and not budget_used:
            self.ends.end(trial, TrialState.STOPPED, metrics, None, done.worker)
        elif status == "failed":
            self.ends.end(trial, TrialState.FAILED, metrics, outcome.get("error"), done.worker)
        else:
            problem = target_problem(metrics, c.spec.metric, c.objective_names)
            self.ends.end(trial, TrialState.FAILED if problem else TrialState.COMPLETED, metrics, problem,
                          done.worker)

    def _lost(self, trial: DrivenTrial, done: AttemptDone) -> None:
        """An attempt that returned nothing: its worker died, or it was cancelled."""
        c, queued = self.context, not trial.attempt_started and not self.context.stopping
        copy_missing = (done.reason or "").startswith(SHARED_COPY_MISSING)
        if queued and copy_missing:
            c.withdraw(trial, requeue=True)  # the copy is put in the cluster again: never the trial's failure
        elif copy_missing and trial.stop_reason is None:
            # it had started: its worker died with the only copy, and the scheduler's own re-run of it
            # elsewhere found none; the trial is retried for what happened to it, its worker's death
            self.fail_or_retry(trial, WORKER_DIED_WITH_COPY, done.worker)
        elif self._port_was_taken(trial, done):
            trial.port_retries += 1
            self._retry(trial, str(done.reason), counted=False)
        elif queued and trial.lost_queued < MAX_LOST_QUEUED:
            # lost while queued behind another trial on a worker that died: not its failure
            trial.lost_queued += 1
            c.withdraw(trial, requeue=True)
        elif trial.stop_reason is not None:
            self.ends.end(trial, TrialState.STOPPED, trial.metrics, None, done.worker)
        else:
            self.fail_or_retry(trial, done.reason or "lost", done.worker)

    def fail_or_retry(self, trial: DrivenTrial, reason: str, worker: str | None) -> None:
        """Run the trial again (from its latest checkpoint) while it has retries left and the
        search goes on; else it failed for ``reason``."""
        if trial.retries < self.context.spec.retries and not self.context.stopping:
            self._retry(trial, reason)
        else:
            self.ends.end(trial, TrialState.FAILED, trial.metrics,
                          f"{reason} (after {trial.retries} retries)", worker)

    @staticmethod
    def _port_was_taken(trial: DrivenTrial, done: AttemptDone) -> bool:
        """A gang's rank 0 found its port taken: not the trial's doing, so run again (a few times)."""
        return (done.reason or "").startswith(PORT_TAKEN) and trial.port_retries < MAX_LOST_QUEUED

    def _retry(self, trial: DrivenTrial, reason: str, counted: bool = True) -> None:
        c = self.context
        del c.running[trial.trial_id]
        trial.stop_reason = trial.timed_out = trial.stop_sent_at = None
        trial.retries += int(counted)
        trial.new_attempt(skip_through_step=trial.last_stored_step)
        c.writer.event("retry", {"trial": trial.trial_id, "reason": reason, "attempt": trial.attempt,
                                 "from_step": trial.last_stored_step if trial.checkpoint else None})
        c.requeue.insert(0, trial)
