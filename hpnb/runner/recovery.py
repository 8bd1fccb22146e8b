"""Bringing a stored search back: the strategy's sequence, and the trials to run again.

The strategy state is saved with ``last_suggested`` (the highest trial id it
had proposed) and ``pending`` (proposed, not yet observed). On resume, trials
stored after that save are replayed through ``suggest`` so the sequence
continues where it was; finished trials the saved state had not observed are
observed; unfinished trials are run again, from their checkpoint when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hpnb.core.schedulers.base import Scheduler
from hpnb.core.store import ExperimentRecord, Store
from hpnb.core.strategies.base import Strategy
from hpnb.core.trial import TrialState
from hpnb.runner.checkpoints import CheckpointFiles
from hpnb.runner.trial_runtime import TrialRuntime

_FINISHED = {s.value for s in TrialState if s.is_finished}


@dataclass
class Recovered:
    """What a driver starts from."""

    next_id: int = 0
    started: int = 0
    last_suggested: int = -1
    requeue: list[TrialRuntime] = field(default_factory=list)


def recover(store: Store, record: ExperimentRecord, strategy: Strategy, scheduler: Scheduler) -> Recovered:
    """Restore ``strategy`` and ``scheduler`` from ``record`` and list the trials to run again."""
    saved = record.strategy_state or {}
    if saved.get("strategy"):
        strategy.load_state_dict(saved["strategy"])
    if record.scheduler_state:
        scheduler.load_state_dict(record.scheduler_state)
    last = int(saved.get("last_suggested", -1))
    pending = set(saved.get("pending", []))
    trials = sorted(store.trials(record.id), key=lambda t: t.trial_id)
    last_seq = store.last_seq(record.id)
    files = CheckpointFiles(store.path.parent / "checkpoints", record.id)
    recovered = Recovered(next_id=(trials[-1].trial_id + 1) if trials else 0, started=len(trials),
                          last_suggested=max([last] + [t.trial_id for t in trials]))
    for trial in trials:
        if trial.trial_id > last:
            strategy.suggest(trial.trial_id)  # advance the sequence; the stored params stay authoritative
        if trial.state in _FINISHED:
            if trial.trial_id > last or trial.trial_id in pending:
                value = None if trial.state == TrialState.FAILED.value else trial.value
                strategy.observe(trial.trial_id, value, TrialState(trial.state))
            continue
        runtime = TrialRuntime(trial.trial_id, dict(trial.params), retries=trial.retries, parent=trial.parent,
                               start=trial.start or 0.0, started=trial.start is not None,
                               last_stored_seq=last_seq.get(trial.trial_id, 0),
                               last_stored_step=trial.last_step, last_step=trial.last_step,
                               last_value=trial.value, best_value=trial.best, metrics=dict(trial.metrics))
        if trial.checkpoint:
            runtime.checkpoint = files.read(trial.checkpoint)
        runtime.attempt = trial.retries
        runtime.new_attempt(skip_through_step=trial.last_step)
        recovered.requeue.append(runtime)
    return recovered
