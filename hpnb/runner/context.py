"""What the driver's parts share: the store writer, the trials, the executor, the clock.

The driver (:mod:`hpnb.runner.driver`) owns one :class:`DriverContext` and hands it to its
parts (commands, pauses, exploits, verdicts, settling), so none of them holds the driver
itself; all run on the driver thread, so nothing here is locked.

Example:
    >>> context = DriverContext(name="demo", experiment_id=1, spec=spec, objective=train,  # doctest: +SKIP
    ...                         store=store, writer=writer, executor=executor, strategy=strategy,
    ...                         stopping_rule=rule, checkpoints=refs, public=DriverState())
    >>> context.stop_all("stopped by the user")  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.objectives import Objective
from hpnb.core.spec import ExperimentSpec
from hpnb.core.store import Store
from hpnb.core.strategies.base import Strategy
from hpnb.core.summary import ExperimentState
from hpnb.runner.checkpoint_refs import CheckpointRefs
from hpnb.runner.checkpoint_store import CheckpointLocation
from hpnb.runner.driven_trial import DrivenTrial
from hpnb.runner.executor import Executor
from hpnb.runner.store_writer import StoreWriter
from hpnb.runner.worker.objective import TrialTask

#: seconds a trial at a decision point waits for its verdict before it goes on by itself.
VERDICT_TIMEOUT = 10.0
#: the stop reason of a trial that used its whole per-trial budget: it ends COMPLETED.
BUDGET_REACHED = "reached its step budget"


@dataclass
class DriverState:
    """What the handle reads while the driver runs (plain values, swapped atomically)."""

    #: an :class:`ExperimentState`'s value (the handle's ``state`` is a plain string)
    state: str = ExperimentState.RUNNING.value
    budget: int = 0
    parallel: int = 1
    started: int = 0
    message: str | None = None
    #: the per-trial resource that allows fewer trials at once than ``parallel`` asks, or None
    limited_by: str | None = None


@dataclass
class DriverContext:
    """One search's driver state that its parts read and change."""

    name: str
    experiment_id: int
    spec: ExperimentSpec
    objective: Callable[..., Any]
    store: Store
    writer: StoreWriter
    executor: Executor
    strategy: Strategy
    stopping_rule: StoppingRule
    checkpoints: CheckpointRefs
    public: DriverState
    #: the trial attempts submitted and not ended, by trial id
    running: dict[int, DrivenTrial] = field(default_factory=dict)
    #: trials to submit before any new one (retries, withdrawn, resumed), first first
    requeue: list[DrivenTrial] = field(default_factory=list)
    #: paused trials: their slot is free, they resume from their checkpoints
    paused: dict[int, DrivenTrial] = field(default_factory=dict)
    #: where trials wait for a verdict: the rule's and the strategy's decision points
    decision_points: DecisionPoints = field(default_factory=DecisionPoints)
    #: the state the search ends in once its running trials are stopped (None: it goes on)
    stopping: ExperimentState | None = None
    #: the strategy has nothing more to suggest
    exhausted: bool = False
    #: with no ``parallel`` set the search uses every slot of the cluster
    auto_parallel: bool = False
    #: worker threads of the cluster, as last asked
    capacity: int = 1
    #: grows or shrinks a cluster hpnb started for the search to a number of workers
    scale: Callable[[int], None] | None = None
    #: the clock the driver measures grace periods and time limits with
    clock: Callable[[], float] = time.monotonic
    #: the search's place in the checkpoint store, told to every attempt
    location: CheckpointLocation | None = None

    @property
    def target(self) -> Objective:
        """The objective of a trial's value and best (the first one, ``metric`` and ``mode``)."""
        return self.spec.objectives[0]

    @property
    def objective_names(self) -> tuple[str, ...]:
        """Every objective's metric when the search has several, else nothing."""
        return tuple(o.name for o in self.spec.objectives) if self.spec.is_multi_objective else ()

    def task_of(self, trial: DrivenTrial) -> TrialTask:
        """What a worker needs to run ``trial``'s current attempt."""
        return TrialTask(self.name, trial.trial_id, trial.attempt, trial.params, self.spec.metric,
                         trial.checkpoint, decision_points=self.decision_points,
                         start_step=trial.start_step, verdict_timeout=VERDICT_TIMEOUT,
                         objectives=self.objective_names, checkpoints=self.location,
                         fallback=tuple(c for c in self.checkpoints.candidates(trial.trial_id)
                                        if c[0] != trial.checkpoint))

    def in_flight_limit(self) -> int:
        """How many attempts may be submitted at once.

        When every slot is used and results do not change later suggestions, the
        next trials wait queued on the cluster, so a slot never idles while its
        next trial travels from the driver.
        """
        parallel = self.public.parallel
        if self.executor.limited_by is not None:  # no more trials than the resources hold
            parallel = min(parallel, self.capacity)
        if parallel >= self.capacity and not self.strategy.learns_from_results:
            return parallel + self.capacity
        return parallel

    def request_stop(self, trial: DrivenTrial, reason: str, waits: bool = False) -> None:
        """Stop an attempt: by its verdict when it waits at a decision point, else by its stop flag."""
        if trial.stop_reason is None:
            trial.stop_reason = reason
            trial.stop_sent_at = self.clock()
            if not waits:
                self.executor.stop(trial.trial_id, trial.attempt)

    def withdraw(self, trial: DrivenTrial, requeue: bool = False) -> None:
        """Take back a queued attempt that never started: it stays PENDING, to run later
        (or on resume). Its next attempt gets a new number, so a late start is ignored."""
        self.executor.cancel(trial.trial_id, trial.attempt)
        del self.running[trial.trial_id]
        trial.new_attempt(skip_through_step=trial.last_stored_step)
        if requeue:
            self.requeue.insert(0, trial)

    def stop_all(self, reason: str, final: ExperimentState = ExperimentState.STOPPED) -> None:
        """Stop the search: running trials are asked to stop, queued ones withdrawn."""
        self.stopping = final
        self.public.message = reason
        for trial in list(self.running.values()):
            if trial.attempt_started:
                self.request_stop(trial, reason)
            else:
                self.withdraw(trial)

    def stop_reason(self, step: int) -> str:
        """Why the early-stopping rule stopped a trial at ``step``."""
        max_t = self.stopping_rule.max_t
        if max_t is not None and step >= max_t:
            return f"{BUDGET_REACHED} (max_t={max_t})"
        return f"early stopping ({self.stopping_rule.name}) at step {step}"
