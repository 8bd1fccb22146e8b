"""Trial states and the values strategies hand to the runner."""

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
