"""The rungs of successive halving: steps ``grace * reduction**k`` and the scores recorded there.

Shared by ASHA (one ladder) and Hyperband (one per bracket). The stopping ladder
judges a trial once per rung: it continues when its score ranks among the best
``ceil(n / reduction)`` of the ``n`` recorded there, itself included.

Example:
    >>> ladder = RungLadder(grace=1, reduction=3, max_t=10)
    >>> list(ladder.levels())
    [1, 3, 9]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.base import Decision, check_int, score_from_json, score_to_json


class RungLadder:
    """The rungs of one successive-halving bracket and the scores recorded at each.

    Args:
        grace: the step of the lowest rung.
        reduction: the factor between rungs; the best ``1/reduction`` continue.
        max_t: rungs lie strictly below it (None: no upper end).
    """

    def __init__(self, grace: int, reduction: int, max_t: int | None) -> None:
        self.grace = grace
        self.reduction = reduction
        self.max_t = max_t
        #: rung step -> {trial id: score recorded there}
        self.recorded: dict[int, dict[int, float]] = {}
        self.stopped: set[int] = set()

    def levels(self, up_to: int | None = None) -> Iterator[int]:
        """Rung steps in increasing order, up to ``up_to`` included."""
        level = self.grace
        while (self.max_t is None or level < self.max_t) and (up_to is None or level <= up_to):
            yield level
            level *= self.reduction

    def points(self) -> DecisionPoints:
        """The rung steps (up to 2**31 when there is no ``max_t``: a few dozen at most)."""
        return DecisionPoints.at(*self.levels(up_to=2**31))

    def judge(self, trial_id: int, step: int, score: float) -> Decision:
        if trial_id in self.stopped:
            return Decision.STOP
        for level in self.levels(up_to=step):
            rung = self.recorded.setdefault(level, {})
            if trial_id in rung:
                continue
            rung[trial_id] = score
            better = sum(1 for other in rung.values() if other < score)
            if better + 1 > math.ceil(len(rung) / self.reduction):
                self.stopped.add(trial_id)
                return Decision.STOP
        return Decision.CONTINUE

    def state_dict(self) -> dict[str, Any]:
        return {"rungs": [[level, [[tid, score_to_json(s)] for tid, s in rung.items()]]
                          for level, rung in self.recorded.items()],
                "stopped": sorted(self.stopped)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.recorded = {int(level): {int(tid): score_from_json(s) for tid, s in rows}
                         for level, rows in state.get("rungs", [])}
        self.stopped = {int(tid) for tid in state.get("stopped", [])}


def check_ladder_options(grace: Any, reduction: Any) -> tuple[int, int]:
    """Validated ``grace`` (>= 1) and ``reduction`` (>= 2)."""
    return check_int("grace", grace, 1), check_int("reduction", reduction, 2)
