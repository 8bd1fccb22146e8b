"""A trial's end: recorded in the store, told to the strategy and the early-stopping rule.

A part of the driver (:mod:`hpnb.runner.driver`), on its thread. It also counts the
failures in a row and stops the search after ``max_failures`` of them.

Example:
    >>> ends = TrialEnds(context, exploits)  # doctest: +SKIP
    >>> ends.end(trial, TrialState.COMPLETED, {"loss": 0.2}, None, "worker-1")  # doctest: +SKIP
"""

from __future__ import annotations

import time
from typing import Any

from hpnb.core.constraints import learnt_violations, missing
from hpnb.core.objectives import finite_number, objective_values
from hpnb.core.summary import ExperimentState
from hpnb.core.trial import TrialState
from hpnb.runner.context import DriverContext
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.exploits import Exploits

#: the event of a constrained metric a trial ended without (once per metric and search).
NEVER_REPORTED = "constraint_never_reported"


class TrialEnds:
    """Ends one search's trials, and counts its failures in a row."""

    def __init__(self, context: DriverContext, exploits: Exploits) -> None:
        self.context = context
        self.exploits = exploits
        self.failures_in_row = 0
        self.first_failure: str | None = None
        #: constrained metrics a trial ended without, said once each (read from the store's
        #: events when first needed, so a resumed search does not say it again)
        self.unreported: set[str] | None = None

    def end(self, trial: DrivenTrial, state: TrialState, metrics: dict[str, Any], error: str | None,
            worker: str | None) -> None:
        """Record ``trial``'s end in ``state`` and tell the strategy and the rule."""
        c = self.context
        c.running.pop(trial.trial_id, None)
        # a failed trial has no score: its reports stay in the history, not in the ranking
        value = None if state is TrialState.FAILED else finite_number(metrics.get(c.spec.metric))
        if state is TrialState.STOPPED and value is None:
            value = trial.last_value
        if value is not None:
            trial.note_best(value, c.target)
        c.writer.trial(trial.trial_id, state=state.value, end=time.time(),
                       worker=worker or trial.worker, error=error, metrics=metrics, value=value,
                       best=trial.best_value, last_step=trial.last_step, retries=trial.retries,
                       stop_reason=trial.stop_reason)
        self._check_constraints(trial.trial_id, state, metrics)
        c.strategy.observe(trial.trial_id, self._learnt(value, metrics, state), state)
        self.exploits.settle_paused()  # nobody waits for a member that ended
        c.writer.pending_ids.discard(trial.trial_id)
        c.stopping_rule.on_trial_end(trial.trial_id, state)
        c.writer.strategy_dirty = True
        self._count_failures(state, error)

    def _check_constraints(self, trial_id: int, state: TrialState, metrics: dict[str, Any]) -> None:
        """Tell the strategy the trial's violations, and say once per metric that a trial that
        ran to its end never reported a constrained metric (every such trial is infeasible)."""
        c = self.context
        constraints = c.spec.constraints
        if not constraints:
            return
        if c.strategy.constraint_count:
            c.strategy.observe_violations(trial_id, learnt_violations(metrics, constraints))
        if state is TrialState.FAILED:
            return
        for metric in missing(metrics, constraints):
            if self.unreported is None:
                self.unreported = {str(e["data"].get("metric")) for e in c.store.events(c.experiment_id)
                                   if e["kind"] == NEVER_REPORTED and isinstance(e["data"], dict)}
            if metric not in self.unreported:
                self.unreported.add(metric)
                c.writer.event(NEVER_REPORTED, {"trial": trial_id, "metric": metric, "reason": (
                    f"never reported {metric}: the trials that do not report it fail its constraint "
                    f"(constraints: {metric}); report it with hpnb.report({metric}=...) or return it")})

    def _learnt(self, value: float | None, metrics: dict[str, Any],
                state: TrialState) -> float | tuple[float, ...] | None:
        """What the strategy learns of an ended trial: its value, or each objective's."""
        spec = self.context.spec
        if not spec.is_multi_objective:
            return value
        return None if state is TrialState.FAILED else objective_values(metrics, spec.objectives)

    def _count_failures(self, state: TrialState, error: str | None) -> None:
        c = self.context
        if state is not TrialState.FAILED:
            self.failures_in_row = 0
            return
        self.failures_in_row += 1
        self.first_failure = self.first_failure or error
        if self.failures_in_row >= c.spec.max_failures and not c.stopping:
            c.stop_all(f"{self.failures_in_row} trials failed in a row; the first error was:\n"
                       f"{self.first_failure}", final=ExperimentState.FAILED)
