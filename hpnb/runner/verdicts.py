"""What the driver answers a trial at one of its reports: continue, stop, pause or exploit.

A part of the driver (:mod:`hpnb.runner.driver`), on its thread. For each stored report it
lets the strategy and the early-stopping rule judge, carries out what they decide (a stop,
an exploit, a pause by the strategy, by the rule or by the user) and returns the verdict
that a trial waiting at a decision point gets (see :meth:`hpnb.runner.executor.Executor.verdict`).

Example:
    >>> verdicts = Verdicts(context, exploits, pauses)  # doctest: +SKIP
    >>> verdicts.on_row(trial, [1, 4, 0.0, {"loss": 0.3}, None, True])  # doctest: +SKIP
    'continue'
"""

from __future__ import annotations

from typing import Any

from hpnb.core.early_stopping.base import Decision
from hpnb.core.pause_problems import no_checkpoint_reason
from hpnb.core.strategies.pbt_exploit import Exploit
from hpnb.runner.context import BUDGET_REACHED, DriverContext
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.executor import ResultBatch
from hpnb.runner.exploits import Exploits
from hpnb.runner.pausing import Pauses

#: the verdicts a waiting trial gets.
CONTINUE, STOP, PAUSE, EXPLOIT = "continue", "stop", "pause", "exploit"


class Verdicts:
    """Judges one search's reports and carries out the decisions."""

    def __init__(self, context: DriverContext, exploits: Exploits, pauses: Pauses) -> None:
        self.context = context
        self.exploits = exploits
        self.pauses = pauses

    def answer_waiting(self, batch: ResultBatch, verdict: str) -> None:
        """Give ``verdict`` to each row of ``batch`` that waits at a decision point."""
        for raw in batch.rows:
            if len(raw) > 5 and raw[1] is not None:
                self.context.executor.verdict(batch.trial_id, batch.attempt, int(raw[1]), verdict)

    def on_row(self, trial: DrivenTrial, raw: list[Any]) -> str:
        """Store one report and judge it; the verdict for the trial (it waits for it at a decision point)."""
        c = self.context
        row = trial.accept(raw, c.target)
        blob = raw[4]
        if blob is not None:
            self.keep_checkpoint(trial, row.step if row else None, blob)
        if row is None:
            return CONTINUE  # a step an earlier attempt stored and was judged on
        c.writer.results([row])
        if trial.stop_reason is not None or trial.pausing is not None:
            return PAUSE if trial.pausing is not None else STOP
        if row.value is None:
            return self.user_pause(trial, waits=len(raw) > 5)
        step = row.step if row.step is not None else row.seq
        return self.judge(trial, step, row.value, isinstance(blob, str), waits=len(raw) > 5)

    def keep_checkpoint(self, trial: DrivenTrial, step: int | None, ref: Any) -> None:
        """A worker wrote a checkpoint (``ref``) or failed to (``{"error": why}``)."""
        c = self.context
        if isinstance(ref, str):
            trial.checkpoint, trial.checkpoint_step = ref, step
            c.checkpoints.add(trial.trial_id, ref, step)
            c.writer.checkpoint(trial.trial_id, step, ref)
            return
        error = str(ref.get("error")) if isinstance(ref, dict) else f"not a checkpoint reference: {ref!r}"
        if error != trial.checkpoint_error:  # the trial resumes from its previous one: say so once
            trial.checkpoint_error = error
            c.writer.event("checkpoint_failed", {"trial": trial.trial_id, "step": step, "error": error})

    def judge(self, trial: DrivenTrial, step: int, value: float, checkpointed: bool, waits: bool) -> str:
        """Let the strategy and the early-stopping rule see one result; the trial's verdict."""
        # called for every report a search streams: what cannot change anything is not called
        c, trial_id = self.context, trial.trial_id
        if checkpointed:
            c.strategy.checkpointed(trial_id, step)
        c.strategy.report(trial_id, step, value)
        decision = c.strategy.decide(trial_id, step)
        if waits:
            self.exploits.settle_paused()
        if decision is not None:
            if isinstance(decision, Exploit):
                return EXPLOIT if self.exploits.exploit(trial, decision, waits) else CONTINUE
            if decision is Decision.STOP:
                c.request_stop(trial, f"{BUDGET_REACHED} (max_steps={step})", waits)
                return STOP
        ruled = c.stopping_rule.on_result(trial_id, step, value)
        if ruled is Decision.PAUSE:
            ruled = self.rule_pause(trial, step, waits)
        if self.pauses.promotion:  # this result may rank a trial paused at a rung higher
            self.pauses.promote_waiting()
        if ruled is Decision.STOP:
            c.request_stop(trial, c.stop_reason(step), waits)
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
        rule = self.context.stopping_rule
        if waits and self.pauses.can_pause(trial):
            trial.pausing = f"early stopping ({rule.name}): waits at step {step} to be promoted"
            self.pauses.promotion.add(trial.trial_id)
            return Decision.PAUSE
        return rule.without_pause(trial.trial_id)

    def strategy_pause(self, trial: DrivenTrial, waits: bool) -> str:
        """The strategy let a member wait for others; without a checkpoint it decides at once."""
        if self.pauses.can_pause(trial) and waits:
            trial.pausing = "population-based training: members behind it run first"
            return PAUSE
        exploit = self.context.strategy.on_resume(trial.trial_id)
        if exploit is not None:
            return EXPLOIT if self.exploits.exploit(trial, exploit, waits) else CONTINUE
        return CONTINUE

    def user_pause(self, trial: DrivenTrial, waits: bool) -> str:
        """The user's pause request, carried out when the trial waits for this verdict."""
        if not (trial.pause_requested and waits):
            return CONTINUE
        trial.pause_requested = False
        if not self.pauses.can_pause(trial):
            self.pauses.held.discard(trial.trial_id)
            self.context.writer.event("pause_refused", {"trial": trial.trial_id,
                                                        "reason": no_checkpoint_reason(trial.trial_id)})
            return CONTINUE
        trial.pausing = "by the user"
        return PAUSE
