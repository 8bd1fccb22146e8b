"""The states of trials and searches, and the values strategies hand to the runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class TrialState(str, Enum):
    """Where a trial is in its life.

    Example:
        >>> TrialState("COMPLETED").is_finished
        True
    """

    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    STOPPED = "STOPPED"
    #: its slot was freed; it resumes later from its latest checkpoint (a rule, PBT or the user).
    PAUSED = "PAUSED"

    @property
    def is_finished(self) -> bool:
        return self in (TrialState.COMPLETED, TrialState.FAILED, TrialState.STOPPED)

    @property
    def is_under_way(self) -> bool:
        """Pending or running: its driver runs it now or will (when that driver died, the trial
        shows as INTERRUPTED and a resume runs it again)."""
        return self in (TrialState.PENDING, TrialState.RUNNING)


class ExperimentState(str, Enum):
    """The state of a search, as stored and as every front end shows it (a RUNNING search whose
    driver stopped its heartbeat shows as INTERRUPTED: :func:`hpnb.core.summary.experiment_state`).

    Example:
        >>> [state.value for state in ExperimentState if state.is_active]
        ['CREATED', 'RUNNING']
        >>> ExperimentState.COMPLETED.is_resumable
        True
    """

    CREATED = "CREATED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    INTERRUPTED = "INTERRUPTED"

    @property
    def is_active(self) -> bool:
        """Whether a driver works on it right now (a Stop button makes sense)."""
        return self in (ExperimentState.CREATED, ExperimentState.RUNNING)

    @property
    def is_resumable(self) -> bool:
        """Whether ``resume`` can continue it (or extend it)."""
        return not self.is_active


@dataclass(frozen=True)
class Suggestion:
    """What a strategy proposes for one new trial.

    Attributes:
        params: the configuration, one value for every parameter of the space.
        parent: the trial this one continues from (population-based training), if any.
    """

    params: dict[str, Any]
    parent: int | None = None
    info: dict[str, Any] = field(default_factory=dict)
