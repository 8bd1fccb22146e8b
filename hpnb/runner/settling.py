"""How an ended attempt settles its trial: completed, stopped, failed, parked as paused, or run again.

The driver hands each attempt's end here (its outcome, or the reason it was lost), and ends trials
here when it gives up on them; this records the end, tells the strategy and the early-stopping
rule, and stops the search after too many failures in a row.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from hpnb.core.objectives import objective_values
from hpnb.core.trial import TrialState
from hpnb.runner.driven_trial import DrivenTrial, better, finite
from hpnb.runner.executor import AttemptDone
from hpnb.runner.verdicts import BUDGET_REACHED
from hpnb.runner.worker.objective import target_problem

if TYPE_CHECKING:
    from hpnb.runner.driver import Driver

#: times an attempt lost before it started is run again without counting as a retry.
MAX_LOST_QUEUED = 3


class Settling:
    """The ends of one driver's attempts, and its count of failures in a row."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.failures_in_row = 0
        self.first_failure: str | None = None

    def settle(self, trial: DrivenTrial, done: AttemptDone) -> None:
        """Turn an ended attempt into a final trial state, or a retry."""
        d = self.driver
        if done.outcome is None:
            d.writer.lost_output(trial.trial_id, done.attempt, done.worker or trial.worker,
                                 done.reason or "lost")
        if trial.timed_out is not None and (done.outcome is None or done.outcome.get("status") != "ok"):
            self.fail_or_retry(trial, trial.timed_out, done.worker)
            return
        status = None if done.outcome is None else done.outcome.get("status")
        if trial.pausing is not None and status in (None, "stopped") and trial.attempt_started:
            d.pauses.park(trial, trial.pausing)  # a worker lost meanwhile loses nothing either
            return
        if done.outcome is None:
            self._lost(trial, done)
            return
        outcome = done.outcome
        metrics = {**trial.metrics, **outcome.get("metrics", {})}
        budget_used = (trial.stop_reason or "").startswith(BUDGET_REACHED)
        if status == "stopped" and not budget_used:
            self.end(trial, TrialState.STOPPED, metrics, None, done.worker)
        elif status == "failed":
            self.end(trial, TrialState.FAILED, metrics, outcome.get("error"), done.worker)
        else:
            problem = target_problem(metrics, d.spec.metric, d.objective_names)
            self.end(trial, TrialState.FAILED if problem else TrialState.COMPLETED, metrics, problem,
                     done.worker)

    def _lost(self, trial: DrivenTrial, done: AttemptDone) -> None:
        """An attempt that returned nothing: its worker died, or it was cancelled."""
        d = self.driver
        if not trial.attempt_started and not d.stopping and trial.lost_queued < MAX_LOST_QUEUED:
            # lost while queued behind another trial on a worker that died: not its failure
            trial.lost_queued += 1
            d.commands.withdraw(trial, requeue=True)
        elif trial.stop_reason is not None:
            self.end(trial, TrialState.STOPPED, trial.metrics, None, done.worker)
        else:
            self.fail_or_retry(trial, done.reason or "lost", done.worker)

    def fail_or_retry(self, trial: DrivenTrial, reason: str, worker: str | None) -> None:
        """Run the trial again (from its latest checkpoint) while it has retries left and the
        search goes on; else it failed for ``reason``."""
        d = self.driver
        if trial.retries < d.spec.retries and not d.stopping:
            self._retry(trial, reason)
        else:
            self.end(trial, TrialState.FAILED, trial.metrics,
                     f"{reason} (after {trial.retries} retries)", worker)

    def _retry(self, trial: DrivenTrial, reason: str) -> None:
        d = self.driver
        del d.running[trial.trial_id]
        trial.stop_reason = trial.timed_out = trial.stop_sent_at = None
        trial.retries += 1
        trial.new_attempt(skip_through_step=trial.last_stored_step)
        d.writer.event("retry", {"trial": trial.trial_id, "reason": reason, "attempt": trial.attempt,
                                 "from_step": trial.last_stored_step if trial.checkpoint else None})
        d.requeue.insert(0, trial)

    def end(self, trial: DrivenTrial, state: TrialState, metrics: dict[str, Any], error: str | None,
            worker: str | None) -> None:
        """Record ``trial``'s end in ``state`` and tell the strategy and the rule."""
        d = self.driver
        d.running.pop(trial.trial_id, None)
        # a failed trial has no score: its reports stay in the history, not in the ranking
        value = None if state is TrialState.FAILED else finite(metrics.get(d.spec.metric))
        if state is TrialState.STOPPED and value is None:
            value = trial.last_value
        if value is not None and state is not TrialState.FAILED and (
                trial.best_value is None or better(value, trial.best_value, d.spec.mode)):
            trial.best_value = value
        d.writer.trial(trial.trial_id, state=state.value, end=time.time(),
                       worker=worker or trial.worker, error=error, metrics=metrics, value=value,
                       best=trial.best_value, last_step=trial.last_step, retries=trial.retries,
                       stop_reason=trial.stop_reason)
        d.strategy.observe(trial.trial_id, self._learnt(value, metrics, state), state)
        d.verdicts.settle_paused()  # nobody waits for a member that ended
        d.writer.pending_ids.discard(trial.trial_id)
        d.stopping_rule.on_trial_end(trial.trial_id, state)
        d.writer.strategy_dirty = True
        self._count_failures(state, error)

    def _learnt(self, value: float | None, metrics: dict[str, Any],
                state: TrialState) -> float | tuple[float, ...] | None:
        """What the strategy learns of an ended trial: its value, or each objective's."""
        spec = self.driver.spec
        if not spec.is_multi_objective:
            return value
        return None if state is TrialState.FAILED else objective_values(metrics, spec.objectives)

    def _count_failures(self, state: TrialState, error: str | None) -> None:
        d = self.driver
        if state is not TrialState.FAILED:
            self.failures_in_row = 0
            return
        self.failures_in_row += 1
        self.first_failure = self.first_failure or error
        if self.failures_in_row >= d.spec.max_failures and not d.stopping:
            d.commands.stop_all(f"{self.failures_in_row} trials failed in a row; the first error was:\n"
                                f"{self.first_failure}", final="FAILED")
