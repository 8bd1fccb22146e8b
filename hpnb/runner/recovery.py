"""Bringing a stored search back: the strategy's sequence, and the trials to run again.

The strategy state is saved with ``last_suggested`` (the highest trial id it
had proposed) and ``pending`` (proposed, not yet observed). On resume the
strategy loads that state, then learns the store's history (its trials, and
their intermediate values for strategies that need them) through
:func:`~hpnb.core.strategies.base.catch_up`: a strategy that rebuilds from
history (tpe, cmaes) replays every stored trial itself; the others have the
trials stored after that save replayed through ``suggest`` so the sequence
continues where it was, and the finished trials the saved state had not
observed observed. Unfinished trials are run again, from their checkpoint when
there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hpnb.core.constraints import Constraint, learnt_violations, record_constraints
from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.objectives import Objective, objective_values
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.strategies.base import Strategy, TrialHistory, catch_up
from hpnb.core.summary import record_objectives
from hpnb.core.trial import TrialState
from hpnb.runner.checkpoint_store import CheckpointStore, check_ref
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.legacy_checkpoints import adopt, legacy_folder, legacy_name

_FINISHED = {s.value for s in TrialState if s.is_finished}


@dataclass
class Recovered:
    """What a driver starts from."""

    next_id: int = 0
    started: int = 0
    last_suggested: int = -1
    requeue: list[DrivenTrial] = field(default_factory=list)
    #: trials that were paused: the driver resumes them as a paused trial is (least advanced first)
    paused: list[DrivenTrial] = field(default_factory=list)
    #: each trial's stored checkpoint: (reference, step)
    checkpoints: dict[int, tuple[str, int | None]] = field(default_factory=dict)
    #: unfinished trials whose checkpoint is a file of the earlier layout: (its name, step); see
    #: :mod:`hpnb.runner.legacy_checkpoints`
    legacy: dict[int, tuple[str, int | None]] = field(default_factory=dict)


def recover(store: Store, record: ExperimentRecord, strategy: Strategy,
            stopping_rule: StoppingRule) -> Recovered:
    """Restore ``strategy`` and ``stopping_rule`` from ``record`` and list the trials to run again."""
    saved = record.strategy_state or {}
    if saved.get("strategy"):
        strategy.load_state_dict(saved["strategy"])
    if record.scheduler_state:
        stopping_rule.load_state_dict(record.scheduler_state)
    last = int(saved.get("last_suggested", -1))
    trials = sorted(store.trials(record.id), key=lambda t: t.trial_id)
    objectives = record_objectives(record)
    history = trial_history(store, record.id, trials, strategy.needs_intermediate_values,
                            objectives if len(objectives) > 1 else (),
                            record_constraints(record) if strategy.constraint_count else ())
    enqueued = record.spec.get("enqueue") or ()
    catch_up(strategy, history, last, set(saved.get("pending", [])), enqueued=enqueued)
    recovered = Recovered(next_id=(trials[-1].trial_id + 1) if trials else 0, started=len(trials),
                          last_suggested=max([last] + [t.trial_id for t in trials]))
    last_seq = store.last_seq(record.id)
    for trial in trials:
        if _readable(trial.checkpoint):
            recovered.checkpoints[trial.trial_id] = (str(trial.checkpoint), trial.checkpoint_step)
        if trial.state not in _FINISHED:
            driven = _driven_trial(trial, last_seq.get(trial.trial_id, 0))
            if legacy_name(trial.trial_id, trial.checkpoint):
                recovered.legacy[trial.trial_id] = (str(trial.checkpoint), trial.checkpoint_step)
            paused = trial.state == TrialState.PAUSED.value and (
                driven.checkpoint is not None or trial.trial_id in recovered.legacy)
            (recovered.paused if paused else recovered.requeue).append(driven)
    return recovered


def trial_history(store: Store, experiment_id: int, trials: Sequence[TrialRecord],
                  with_intermediate: bool, objectives: Sequence[Objective] = (),
                  constraints: Sequence[Constraint] = ()) -> list[TrialHistory]:
    """``trials`` as strategies learn them; intermediate values only when asked (one query). With
    several ``objectives``, each trial's value is the tuple of their values; with ``constraints``,
    each finished trial carries its violations.

    Example:
        >>> history = trial_history(store, exp.id, store.trials(exp.id), True)  # doctest: +SKIP
        >>> history[0].intermediate                                            # doctest: +SKIP
        {0: 0.91, 1: 0.42}
    """
    steps = intermediate_values(store, experiment_id) if with_intermediate else {}
    return [TrialHistory(t.trial_id, dict(t.params), TrialState(t.state), _learnt(t, objectives),
                         steps.get(t.trial_id, {}),
                         learnt_violations(t.metrics, constraints) if t.state in _FINISHED else ())
            for t in trials]


def _learnt(trial: TrialRecord, objectives: Sequence[Objective]) -> float | tuple[float, ...] | None:
    """What a strategy learns of a stored trial: its value, or each objective's (none when failed)."""
    if trial.state == TrialState.FAILED.value:
        return None
    return objective_values(trial.metrics, objectives) if objectives else trial.value


def intermediate_values(store: Store, experiment_id: int) -> dict[int, dict[int, float]]:
    """Per trial, step -> target value of its stored reports, keyed as the driver reported them.

    A report without a step is keyed by its sequence number, as the driver does.
    """
    values: dict[int, dict[int, float]] = {}
    for row in store.results(experiment_id):
        if row.value is not None:
            step = row.step if row.step is not None else row.seq
            values.setdefault(row.trial_id, {}).setdefault(step, row.value)
    return values


def _readable(ref: str | None) -> bool:
    """Whether ``ref`` is a checkpoint reference (a file name kept by hpnb before references
    were paths in a checkpoint store is not: see :func:`adopt_legacy`)."""
    try:
        check_ref(ref or "")
    except ValueError:
        return False
    return True


def _driven_trial(trial: TrialRecord, last_stored_seq: int) -> DrivenTrial:
    """The driven trial of an unfinished trial, to run again from its checkpoint when it has one."""
    driven = DrivenTrial(trial.trial_id, dict(trial.params), retries=trial.retries, parent=trial.parent,
                           start=trial.start or 0.0, started=trial.start is not None,
                           last_stored_seq=last_stored_seq,
                           last_stored_step=trial.last_step, last_step=trial.last_step,
                           last_value=trial.value, best_value=trial.best, metrics=dict(trial.metrics))
    if _readable(trial.checkpoint):
        driven.checkpoint, driven.checkpoint_step = trial.checkpoint, trial.checkpoint_step
    driven.attempt = trial.retries
    driven.new_attempt(skip_through_step=trial.last_step)
    return driven


def adopt_legacy(recovered: Recovered, store: CheckpointStore, store_path: Path, experiment_id: int) -> None:
    """Copy the checkpoints of the earlier layout that ``recovered``'s trials name into ``store``:
    those trials resume from them (one that cannot be read: its trial starts over)."""
    folder = legacy_folder(store_path, experiment_id)
    for trial in (*recovered.requeue, *recovered.paused):
        found = recovered.legacy.get(trial.trial_id)
        ref = adopt(store, folder, trial, *found) if found else None
        if ref is not None:
            recovered.checkpoints[trial.trial_id] = (ref, trial.checkpoint_step)
