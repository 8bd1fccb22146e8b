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

Example:
    >>> rule = ASHA(mode="min", grace=1, reduction=2, max_t=4)
    >>> rule.rungs()
    [1, 2]
    >>> rule.on_result(0, 1, 0.3).value, rule.on_result(1, 1, 0.5).value
    ('CONTINUE', 'STOP')
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from hpnb.core.early_stopping.base import (
    Decision,
    Mode,
    Scheduler,
    check_int,
    option_path,
    score_from_json,
    score_to_json,
)
from hpnb.core.errors import SpecError


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


class ASHA(Scheduler):
    """``rule: asha``.

    Options:
        grace: the step of the first rung (default 1).
        reduction: the factor between rungs; the best ``1/reduction`` at a rung continue (default 3).
        max_t: per-trial budget in steps; rungs lie below it. Optional: without it rungs go on
            geometrically and trials end when their own training loop ends.
    """

    name = "asha"
    options = ("max_t", "grace", "reduction")

    def __init__(self, mode: Mode = "min", max_t: int | None = None, seed: int | None = None,
                 grace: int = 1, reduction: int = 3, **options: Any) -> None:
        super().__init__(mode, max_t, seed, **options)
        grace, reduction = check_ladder_options(grace, reduction)
        if self.max_t is not None and self.max_t <= grace:
            raise SpecError(option_path("max_t"), "must be greater than grace", value=self.max_t,
                            allowed=f"an integer above {grace}")
        self.ladder = RungLadder(grace, reduction, self.max_t)

    def rungs(self) -> list[int]:
        """The rung steps (the first 20 when there is no ``max_t``)."""
        levels = self.ladder.levels()
        return [next(levels) for _ in range(20)] if self.max_t is None else list(levels)

    def judge(self, trial_id: int, step: int, value: float) -> Decision:
        return self.ladder.judge(trial_id, step, self.score(value))

    def state_dict(self) -> dict[str, Any]:
        return self.ladder.state_dict()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.ladder.load_state_dict(state)
