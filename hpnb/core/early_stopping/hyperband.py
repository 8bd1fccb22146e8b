"""Asynchronous Hyperband: several ASHA brackets with different first rungs.

Bracket ``b`` (b = 0, 1, ..., brackets - 1) is an ASHA ladder whose first rung is at
``grace * reduction**b``: bracket 0 stops most eagerly, the last one (with ``max_t``
and the default number of brackets) has no rung below ``max_t`` and never stops
early. By default there are ``s_max + 1`` brackets, where ``s_max`` is the largest
``s`` with ``grace * reduction**s <= max_t``.

Each trial joins one bracket on its first result and is only ever compared with
trials of the same bracket. ``assignment: weighted`` (the default) draws the bracket
with probabilities proportional to the number of configurations the Hyperband paper
gives each bracket, ``(s_max + 1) / (s + 1) * reduction**s`` with ``s = s_max - b``;
the draw depends only on the seed and the trial id, so it is reproducible and
independent of arrival order. ``assignment: round_robin`` cycles through the
brackets in order of first arrival.

Example:
    >>> rule = Hyperband(mode="min", max_t=9, grace=1, reduction=3, assignment="round_robin")
    >>> [ladder.grace for ladder in rule.brackets]
    [1, 3, 9]
    >>> rule.on_result(0, 1, 0.5).value, rule.bracket_of(0)
    ('CONTINUE', 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.base import Decision, Mode, StoppingRule, check_int, option_path
from hpnb.core.early_stopping.rungs import RungLadder, check_ladder_options
from hpnb.core.errors import SpecError

ASSIGNMENTS: tuple[str, ...] = ("weighted", "round_robin")


def largest_bracket(grace: int, reduction: int, max_t: int) -> int:
    """``s_max``: the largest ``s`` with ``grace * reduction**s <= max_t``.

    Example:
        >>> largest_bracket(1, 3, 81), largest_bracket(1, 3, 80)
        (4, 3)
    """
    s, level = 0, grace
    while level * reduction <= max_t:
        s, level = s + 1, level * reduction
    return s


class Hyperband(StoppingRule):
    """``rule: hyperband``.

    Options:
        max_t: per-trial budget in steps (needed unless ``brackets`` is given).
        grace: first rung of the most eager bracket (default 1).
        reduction: factor between rungs and between brackets' first rungs (default 3).
        brackets: how many brackets (default ``s_max + 1``; at most that with ``max_t``).
        assignment: ``weighted`` (default) or ``round_robin``.
    """

    name = "hyperband"
    options = ("max_t", "grace", "reduction", "brackets", "assignment")

    def __init__(self, mode: Mode = "min", max_t: int | None = None, seed: int | None = None,
                 grace: int = 1, reduction: int = 3, brackets: int | None = None,
                 assignment: str = "weighted", **options: Any) -> None:
        super().__init__(mode, max_t, seed, **options)
        grace, reduction = check_ladder_options(grace, reduction)
        if assignment not in ASSIGNMENTS:
            raise SpecError(option_path("assignment"), "unknown bracket assignment",
                            value=assignment, allowed=ASSIGNMENTS)
        self.assignment = assignment
        count, top = self._bracket_count(grace, reduction, brackets)
        self.brackets = [RungLadder(grace * reduction**b, reduction, self.max_t) for b in range(count)]
        weights = np.array([(top + 1) / (top - b + 1) * float(reduction) ** (top - b)
                            for b in range(count)])
        self.weights = weights / weights.sum()
        if self.seed is None:
            self.seed = int(np.random.SeedSequence().entropy % 2**32)  # type: ignore[operator]
        self._assigned: dict[int, int] = {}

    def _bracket_count(self, grace: int, reduction: int, brackets: Any) -> tuple[int, int]:
        """The number of brackets and the paper's ``s`` of bracket 0."""
        if self.max_t is None:
            if brackets is None:
                raise SpecError(option_path("max_t"), "hyperband needs max_t (or brackets)",
                                allowed="the number of steps a trial runs at most")
            count = check_int("brackets", brackets, 1)
            return count, count - 1
        if self.max_t < grace:
            raise SpecError(option_path("max_t"), "must be at least grace", value=self.max_t)
        s_max = largest_bracket(grace, reduction, self.max_t)
        if brackets is None:
            return s_max + 1, s_max
        count = check_int("brackets", brackets, 1)
        if count > s_max + 1:
            raise SpecError(option_path("brackets"), "is more than max_t, grace and reduction allow",
                            value=count, allowed=f"1 to {s_max + 1}")
        return count, s_max

    def bracket_of(self, trial_id: int) -> int:
        """The bracket of ``trial_id``, assigning one when the trial is new."""
        if trial_id not in self._assigned:
            if self.assignment == "round_robin":
                bracket = len(self._assigned) % len(self.brackets)
            else:
                rng = np.random.default_rng([int(self.seed or 0), abs(int(trial_id))])
                bracket = int(rng.choice(len(self.brackets), p=self.weights))
            self._assigned[trial_id] = bracket
        return self._assigned[trial_id]

    def judge(self, trial_id: int, step: int, value: float) -> Decision:
        return self.brackets[self.bracket_of(trial_id)].judge(trial_id, step, self.score(value))

    def decision_points(self) -> DecisionPoints:
        """Every bracket's rungs: a trial learns its bracket only once the driver has its first result."""
        points = super().decision_points()
        for ladder in self.brackets:
            points = points | ladder.points()
        return points

    def state_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "assigned": [[tid, b] for tid, b in self._assigned.items()],
                "brackets": [ladder.state_dict() for ladder in self.brackets]}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.seed = state.get("seed", self.seed)
        self._assigned = {int(tid): int(b) for tid, b in state.get("assigned", [])}
        for ladder, stored in zip(self.brackets, state.get("brackets", [])):
            ladder.load_state_dict(stored)
