"""Paused trials: their slot is free, their latest checkpoint kept; the driver resumes them later.

A part of the driver (:mod:`hpnb.runner.driver`), on its thread.
A trial pauses when a rule or population-based training answers PAUSE at one of its
decision points, or when the user asks (at its next decision point, or at its next
report when the search has none). A paused trial is resumed, on any worker, from its
checkpoint when a slot is free and nothing new is waiting for one: the least advanced
first. A trial the user paused stays paused until the user resumes it, unless nothing
else is left to run (then the search would never end). A trial the rule paused at a
rung (ASHA's promotion type) goes to the next free slot, before new trials, as soon as
the rule promotes it; once nothing else can run, the trials it never promoted end
STOPPED at the rung they reached.

Example:
    >>> pauses = Pauses(context, exploits, ends)  # doctest: +SKIP
    >>> pauses.park(trial, "population-based training: members behind it run first")  # doctest: +SKIP
"""

from __future__ import annotations

from hpnb.core.store.commands import CommandRefused
from hpnb.core.trial import TrialState
from hpnb.runner.context import DriverContext
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.ending import TrialEnds
from hpnb.runner.exploits import Exploits


class PauseRefused(CommandRefused):
    """A trial that cannot be paused (no checkpoint, or not running) or resumed (not paused)."""


class Pauses:
    """The paused trials of one search (kept in its context), and the user's pause requests."""

    def __init__(self, context: DriverContext, exploits: Exploits, ends: TrialEnds) -> None:
        self.context = context
        self.exploits = exploits
        self.ends = ends
        #: trials the user paused: they wait for the user's resume
        self.held: set[int] = set()
        #: trials the early-stopping rule paused at a rung: they wait for it to promote them
        self.promotion: set[int] = context.stopping_rule.waiting_for_promotion()

    @property
    def paused(self) -> dict[int, DrivenTrial]:
        """The paused trials by id."""
        return self.context.paused

    def __len__(self) -> int:
        return len(self.paused)

    def can_pause(self, trial: DrivenTrial) -> bool:
        """Whether ``trial`` has something to resume from."""
        return trial.checkpoint is not None

    def park(self, trial: DrivenTrial, reason: str) -> None:
        """The attempt of a pausing trial ended: free its slot and keep it to resume later."""
        c = self.context
        c.running.pop(trial.trial_id, None)
        trial.pausing = trial.stop_reason = trial.stop_sent_at = None
        trial.pause_requested = False
        trial.new_attempt(skip_through_step=trial.last_stored_step)
        self.paused[trial.trial_id] = trial
        c.writer.trial(trial.trial_id, state=TrialState.PAUSED.value, last_step=trial.last_step)
        c.writer.event("pause", {"trial": trial.trial_id, "step": trial.last_step,
                                 "checkpoint_step": trial.checkpoint_step, "reason": reason})
        self.exploits.carry_out_deferred(trial)
        if trial.trial_id in self.promotion:
            c.writer.strategy_dirty = True  # the rule's state says who waits: a resumed search needs it
            self.promote_waiting()  # results that came while it was pausing may promote it already

    def promote_waiting(self) -> None:
        """Trials the rule promotes now go first to the next free slots, before new trials."""
        c = self.context
        waiting = [trial_id for trial_id in self.promotion if trial_id in self.paused]
        if not waiting:
            return
        for position, trial_id in enumerate(c.stopping_rule.promote(waiting)):
            trial = self.paused.pop(trial_id)
            self.promotion.discard(trial_id)
            self.exploits.prepare_resume(trial)
            c.requeue.insert(position, trial)
            c.writer.trial(trial_id, state=TrialState.PENDING.value)
            c.writer.event("resume", {"trial": trial_id, "from_step": trial.checkpoint_step,
                                      "by": "promotion"})
            c.writer.strategy_dirty = True

    def request(self, trial_id: int) -> None:
        """The user's pause: at the trial's next decision point (next report when there are none)."""
        c = self.context
        trial = c.running.get(trial_id)
        if trial is None:
            return
        self.held.add(trial_id)
        if not trial.attempt_started:  # queued, never ran this attempt: nothing to lose
            c.withdraw(trial)
            self.paused[trial_id] = trial
            c.writer.trial(trial_id, state=TrialState.PAUSED.value)
            c.writer.event("pause", {"trial": trial_id, "step": trial.last_step, "reason": "by the user"})
            return
        trial.pause_requested = True
        if not c.decision_points:
            trial.pausing = "by the user"
            c.executor.stop(trial.trial_id, trial.attempt)

    def resume(self, trial_id: int) -> None:
        """The user's resume: the trial is the next to take a free slot."""
        c = self.context
        self.held.discard(trial_id)
        running = c.running.get(trial_id)
        if running is not None:
            running.pause_requested = False  # asked back before the pause landed
        trial = self.paused.pop(trial_id, None)
        if trial is None:
            return
        if trial_id in self.promotion:  # the user's resume promotes a trial the rule holds
            self.promotion.discard(trial_id)
            c.stopping_rule.promote([trial_id], anyway=True)
        self.exploits.prepare_resume(trial)
        c.requeue.insert(0, trial)
        c.writer.trial(trial_id, state=TrialState.PENDING.value)
        c.writer.event("resume", {"trial": trial_id, "from_step": trial.checkpoint_step, "by": "user"})

    def next_to_resume(self) -> DrivenTrial | None:
        """The paused trial to run now, if any: the least advanced of those free to go."""
        c = self.context
        self.promote_waiting()
        if c.requeue:  # promoted just now (after a resume: no result has promoted it yet)
            return c.requeue.pop(0)
        idle = not c.running and not c.requeue
        ready = [r for r in self.paused.values() if r.trial_id not in self.promotion
                 and (r.trial_id not in self.held or idle) and c.strategy.may_resume(r.trial_id)]
        if not ready and idle:  # nothing else can move: never leave the search stuck
            self.end_unpromoted()
            ready = list(self.paused.values())
        if not ready:
            return None
        chosen = min(ready, key=lambda r: (r.last_stored_step or 0, r.trial_id))
        del self.paused[chosen.trial_id]
        self.held.discard(chosen.trial_id)
        c.writer.event("resume", {"trial": chosen.trial_id, "from_step": chosen.checkpoint_step})
        return chosen

    def end_unpromoted(self) -> None:
        """Nothing runs and nothing new comes: no result can promote the trials still waiting at a
        rung, so they end STOPPED at the step they paused at."""
        c = self.context
        for trial_id in sorted(self.promotion):
            trial = self.paused.pop(trial_id, None)
            if trial is None:
                continue
            trial.stop_reason = f"{c.stop_reason(trial.last_step or 0)}: not promoted"
            self.ends.end(trial, TrialState.STOPPED, trial.metrics, None, trial.worker)
        self.promotion.clear()
