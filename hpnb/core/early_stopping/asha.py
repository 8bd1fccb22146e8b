"""Asynchronous successive halving (ASHA) as an early-stopping rule.

Rungs sit at steps ``grace * reduction**k`` (k = 0, 1, ...) below ``max_t`` (all of
them when there is no ``max_t``). The first result of a trial at or beyond a rung
records its value there, and the trial continues only when that value ranks among
the best ``ceil(n / reduction)`` of the ``n`` values recorded at the rung so far,
itself included; ties count in its favour. Nothing waits: a trial is judged once
per rung, against whatever has arrived, so the first trial at a rung always
continues, and with few values at a rung the best ``ceil(n / reduction)`` is taken
of what is there. A trial that jumps over several rungs in one result is recorded
at each of them with that result's value, lowest rung first.

That is the *stopping* type (the default, Ray Tune's ASHA). ``type: promotion`` is the
ASHA paper's own algorithm: a trial pauses at a rung until it can be promoted, and
none is stopped early (:mod:`hpnb.core.early_stopping.asha_promotion`).

Example:
    >>> rule = ASHA(mode="min", grace=1, reduction=2, max_t=4)
    >>> rule.rungs()
    [1, 2]
    >>> rule.on_result(0, 1, 0.3).value, rule.on_result(1, 1, 0.5).value
    ('CONTINUE', 'STOP')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.asha_promotion import PromotionLadder
from hpnb.core.early_stopping.base import Decision, Mode, StoppingRule, option_path
from hpnb.core.early_stopping.rungs import RungLadder, check_ladder_options
from hpnb.core.errors import SpecError
from hpnb.core.trial import TrialState

__all__ = ["ASHA", "TYPES", "RungLadder", "check_ladder_options"]

#: the values of ``type``: stop a trial below the top at a rung, or pause it until it is promoted.
TYPES: tuple[str, ...] = ("stopping", "promotion")


class ASHA(StoppingRule):
    """``rule: asha``.

    Options:
        grace: the step of the first rung (default 1).
        reduction: the factor between rungs; the best ``1/reduction`` at a rung continue (default 3).
        max_t: per-trial budget in steps; rungs lie below it. Optional: without it rungs go on
            geometrically and trials end when their own training loop ends.
        type: ``stopping`` (default): a trial below the top at a rung stops; ``promotion``: it
            pauses there until it can be promoted (it needs a checkpoint to resume from).
    """

    name = "asha"
    options = ("max_t", "grace", "reduction", "type")

    def __init__(self, mode: Mode = "min", max_t: int | None = None, seed: int | None = None,
                 grace: int = 1, reduction: int = 3, type: str = "stopping", **options: Any) -> None:
        super().__init__(mode, max_t, seed, **options)
        grace, reduction = check_ladder_options(grace, reduction)
        if self.max_t is not None and self.max_t <= grace:
            raise SpecError(option_path("max_t"), "must be greater than grace", value=self.max_t,
                            allowed=f"an integer above {grace}")
        if type not in TYPES:
            raise SpecError(option_path("type"), "unknown ASHA type", value=type, allowed=TYPES)
        self.type = type
        self.ladder = (PromotionLadder if type == "promotion" else RungLadder)(grace, reduction, self.max_t)

    def rungs(self) -> list[int]:
        """The rung steps (the first 20 when there is no ``max_t``)."""
        levels = self.ladder.levels()
        return [next(levels) for _ in range(20)] if self.max_t is None else list(levels)

    def judge(self, trial_id: int, step: int, value: float) -> Decision:
        return self.ladder.judge(trial_id, step, self.score(value))

    def decision_points(self) -> DecisionPoints:
        return super().decision_points() | self.ladder.points()

    def promote(self, paused: Collection[int], anyway: bool = False) -> list[int]:
        if isinstance(self.ladder, PromotionLadder):
            return self.ladder.promote(paused, anyway)
        return []

    def without_pause(self, trial_id: int) -> Decision:
        if isinstance(self.ladder, PromotionLadder):
            return self.ladder.without_pause(trial_id)
        return super().without_pause(trial_id)

    def waiting_for_promotion(self) -> set[int]:
        return set(self.ladder.paused) if isinstance(self.ladder, PromotionLadder) else set()

    def on_trial_end(self, trial_id: int, state: TrialState) -> None:
        if isinstance(self.ladder, PromotionLadder):
            self.ladder.forget_pause(trial_id)

    def state_dict(self) -> dict[str, Any]:
        return self.ladder.state_dict()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.ladder.load_state_dict(state)
