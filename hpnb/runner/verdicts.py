"""What the driver answers a trial at one of its reports: continue, stop, pause or exploit.

A part of :class:`hpnb.runner.driver.Driver` (it holds one), on the driver thread. For
each stored report it lets the strategy and the early-stopping rule judge, carries
out what they decide (a stop, an exploit, a pause by the strategy, by the rule or by
the user) and returns the
verdict that a trial waiting at a decision point gets (see
:meth:`hpnb.runner.executor.Executor.verdict`).

Example:
    >>> verdicts = Verdicts(driver)  # doctest: +SKIP
    >>> verdicts.on_row(trial, [1, 4, 0.0, {"loss": 0.3}, None, True])  # doctest: +SKIP
    'continue'
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from hpnb.core.early_stopping.base import Decision
from hpnb.core.strategies.pbt_exploit import Exploit
from hpnb.runner.executor import ResultBatch
from hpnb.runner.pausing import no_checkpoint_reason

if TYPE_CHECKING:
    from hpnb.runner.driven_trial import DrivenTrial
    from hpnb.runner.driver import Driver

log = logging.getLogger("hpnb")

#: the verdicts a waiting trial gets.
CONTINUE, STOP, PAUSE, EXPLOIT = "continue", "stop", "pause", "exploit"
#: the stop reason of a trial that used its whole per-trial budget: it ends COMPLETED.
BUDGET_REACHED = "reached its step budget"


class Verdicts:
    """Judges reports and carries out the decisions, for the driver it belongs to."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        #: exploits decided for members whose pause had not landed yet (their attempt was still
        #: ending): carried out with the donor's checkpoint of the decision when they park
        self.deferred: dict[int, tuple[Exploit, str | None]] = {}

    def answer_waiting(self, batch: ResultBatch, verdict: str) -> None:
        for raw in batch.rows:
            if len(raw) > 5 and raw[1] is not None:
                self.driver.executor.verdict(batch.trial_id, batch.attempt, int(raw[1]), verdict)

    def on_row(self, trial: DrivenTrial, raw: list[Any]) -> str:
        """Store one report and judge it; the verdict for the trial (it waits for it at a decision point)."""
        row = trial.accept(raw, self.driver.spec.metric, self.driver.spec.mode)
        blob = raw[4]
        if blob is not None:
            self.driver.keep_checkpoint(trial, row.step if row else None, blob)
        if row is None:
            return CONTINUE  # a step an earlier attempt stored and was judged on
        self.driver.writer.results([row])
        if trial.stop_reason is not None or trial.pausing is not None:
            return PAUSE if trial.pausing is not None else STOP
        if row.value is None:
            return self.user_pause(trial, waits=len(raw) > 5)
        step = row.step if row.step is not None else row.seq
        return self.judge(trial, step, row.value, isinstance(blob, str), waits=len(raw) > 5)

    def judge(self, trial: DrivenTrial, step: int, value: float, checkpointed: bool, waits: bool) -> str:
        """Let the strategy and the early-stopping rule see one result; the trial's verdict."""
        # called for every report a search streams: what cannot change anything is not called
        driver, trial_id = self.driver, trial.trial_id
        strategy = driver.strategy
        if checkpointed:
            strategy.checkpointed(trial_id, step)
        strategy.report(trial_id, step, value)
        decision = strategy.decide(trial_id, step)
        if waits:
            self.settle_paused()
        if decision is not None:
            if isinstance(decision, Exploit):
                return EXPLOIT if self.exploit(trial, decision, waits) else CONTINUE
            if decision is Decision.STOP:
                driver.request_stop(trial, f"{BUDGET_REACHED} (max_steps={step})", waits)
                return STOP
        ruled = driver.stopping_rule.on_result(trial_id, step, value)
        if ruled is Decision.PAUSE:
            ruled = self.rule_pause(trial, step, waits)
        if driver.pauses.promotion:  # this result may rank a trial paused at a rung higher
            driver.pauses.promote_waiting()
        if ruled is Decision.STOP:
            driver.request_stop(trial, self.stop_reason(step), waits)
            return STOP
        if ruled is Decision.PAUSE:
            return PAUSE
        if decision is Decision.PAUSE:
            return self.strategy_pause(trial, waits)
        return self.user_pause(trial, waits) if trial.pause_requested else CONTINUE

    def rule_pause(self, trial: DrivenTrial, step: int, waits: bool) -> Decision:
        """The rule holds the trial at a rung until it is promoted (ASHA's promotion type). A trial
        that cannot pause (no checkpoint, or it did not wait for this verdict) is judged at once,
        as the stopping type would judge it."""
        if waits and self.driver.pauses.can_pause(trial):
            rule = self.driver.stopping_rule.name
            trial.pausing = f"early stopping ({rule}): waits at step {step} to be promoted"
            self.driver.pauses.promotion.add(trial.trial_id)
            return Decision.PAUSE
        return self.driver.stopping_rule.without_pause(trial.trial_id)

    def settle_paused(self) -> None:
        """Carry out the decisions paused members made now, while their donors' checkpoints are current."""
        for trial_id, exploit in self.driver.strategy.settle_paused().items():
            if exploit is None:
                continue
            trial = self.driver.pauses.paused.get(trial_id)
            if trial is not None:
                self.restart_from_donor(trial, exploit)
            elif trial_id in self.driver.running:  # told to pause, its attempt not ended yet
                self.deferred[trial_id] = (exploit, self.checkpoint_of(exploit.donor, trial_id))

    def carry_out_deferred(self, trial: DrivenTrial) -> None:
        """``trial`` has just parked: the exploit decided while its pause was landing, if any."""
        deferred = self.deferred.pop(trial.trial_id, None)
        if deferred is not None:
            self.restart_from_donor(trial, *deferred)

    def strategy_pause(self, trial: DrivenTrial, waits: bool) -> str:
        """The strategy let a member wait for others; without a checkpoint it decides at once."""
        if self.driver.pauses.can_pause(trial) and waits:
            trial.pausing = "population-based training: members behind it run first"
            return PAUSE
        exploit = self.driver.strategy.on_resume(trial.trial_id)
        if exploit is not None:
            return EXPLOIT if self.exploit(trial, exploit, waits) else CONTINUE
        return CONTINUE

    def user_pause(self, trial: DrivenTrial, waits: bool) -> str:
        if not (trial.pause_requested and waits):
            return CONTINUE
        trial.pause_requested = False
        if not self.driver.pauses.can_pause(trial):
            self.driver.pauses.held.discard(trial.trial_id)
            self.driver.writer.event("pause_refused", {"trial": trial.trial_id,
                                                "reason": no_checkpoint_reason(trial.trial_id)})
            return CONTINUE
        trial.pausing = "by the user"
        return PAUSE

    def exploit(self, trial: DrivenTrial, exploit: Exploit, waits: bool = False) -> bool:
        """Restart ``trial``'s member from the donor's checkpoint with explored params."""
        blob = self.checkpoint_of(exploit.donor, trial.trial_id)
        if blob is None:
            log.warning("hpnb: no checkpoint of trial %s to exploit; trial %s carries on",
                        exploit.donor, trial.trial_id)
            return False
        if not waits:  # a waiting member ends at its verdict; any other learns it at its next report
            self.driver.executor.stop(trial.trial_id, trial.attempt)
        self.restart_from_donor(trial, exploit, blob)
        self.driver.executor.submit(self.driver.objective, self.driver.task_of(trial))
        return True

    def restart_from_donor(self, trial: DrivenTrial, exploit: Exploit, blob: str | None = None) -> None:
        """Give ``trial`` its new params and a copy of the donor's checkpoint, as its next attempt."""
        blob = blob if blob is not None else self.checkpoint_of(exploit.donor, trial.trial_id)
        if blob is None:
            return  # the donor's checkpoint is gone: the member resumes from its own
        trial.params, trial.parent = dict(exploit.params), exploit.donor
        trial.checkpoint, trial.checkpoint_step = blob, exploit.donor_step
        self.driver.writer.checkpoint(trial.trial_id, exploit.donor_step, blob)
        # continue from the donor's step; steps this member already stored are not stored again
        behind = trial.last_stored_step is not None and (exploit.donor_step or 0) < trial.last_stored_step
        trial.new_attempt(skip_through_step=trial.last_stored_step if behind else None)
        self.driver.writer.trial(trial.trial_id, params=trial.params, parent=exploit.donor)
        self.driver.writer.event("exploit", {"member": trial.trial_id, "step": exploit.step,
                                      "donor": exploit.donor, "donor_step": exploit.donor_step,
                                      "params": trial.params})
        self.driver.writer.strategy_dirty = self.driver.writer.save_state_now = True

    def checkpoint_of(self, trial_id: int, member: int) -> str | None:
        """A copy of trial ``trial_id``'s latest checkpoint for ``member`` (made in the checkpoint
        store), or None when it has none left."""
        copied = self.driver.checkpoints.copy_for(member, trial_id)
        return None if copied is None else copied[0]

    def stop_reason(self, step: int) -> str:
        max_t = self.driver.stopping_rule.max_t
        if max_t is not None and step >= max_t:
            return f"{BUDGET_REACHED} (max_t={max_t})"
        return f"early stopping ({self.driver.stopping_rule.name}) at step {step}"
