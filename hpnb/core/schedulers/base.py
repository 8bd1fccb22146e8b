"""The interface of early-stopping rules: they return decisions, the runner acts.

A scheduler never touches the executor. The runner calls :meth:`Scheduler.on_result`
for every reported result of a running trial and acts on the returned
:class:`Decision`; it calls :meth:`Scheduler.on_trial_end` once per trial.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from hpnb.core.trial import TrialState

Mode = Literal["min", "max"]


class Decision(str, Enum):
    """What the runner does with a trial after one of its results."""

    CONTINUE = "CONTINUE"
    STOP = "STOP"
    #: population-based training: restart from another member's checkpoint.
    EXPLOIT = "EXPLOIT"


class Scheduler:
    """Base class of early-stopping rules; on its own it never stops a trial.

    Args:
        mode: whether lower (``min``) or higher (``max``) values are better.
        max_t: a per-trial budget in steps; a trial that reaches it is stopped.
        **options: rule-specific options from ``early_stopping: {rule: ..., ...}``.
    """

    name: str = "none"
    #: option names the rule accepts (checked by the spec parser).
    options: tuple[str, ...] = ("max_t",)

    def __init__(self, mode: Mode = "min", max_t: int | None = None, **options: Any) -> None:
        self.mode: Mode = mode
        self.max_t = max_t

    def on_result(self, trial_id: int, step: int, value: float) -> Decision:
        """Decide on trial ``trial_id`` after it reported ``value`` at ``step``."""
        if self.max_t is not None and step >= self.max_t:
            return Decision.STOP
        return Decision.CONTINUE

    def on_trial_end(self, trial_id: int, state: TrialState) -> None:
        """Forget or archive a finished trial."""

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        return None

    def score(self, value: float) -> float:
        """``value`` as a quantity to minimise."""
        return value if self.mode == "min" else -value


class NoStopping(Scheduler):
    """``rule: none``: trials run to their end (or to ``max_t`` when given)."""

    name = "none"
