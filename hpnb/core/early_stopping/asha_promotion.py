"""ASHA's promotion type: a trial that reaches a rung pauses there until it can be promoted.

The ASHA paper's own algorithm (Li et al., 2018, Algorithm 2; Syne Tune's
``type="promotion"``). Rungs sit where the stopping type has them. The first result
of a trial at or beyond a rung records its value there; the trial goes on at once
when that value ranks among the best ``floor(n / reduction)`` of the ``n`` values
recorded at the rung (ties in its favour) and it has not gone on from that rung
already; otherwise it *pauses* at the rung. A paused trial is *promoted* (resumed)
as soon as later arrivals at its rung make it rank among the best
``floor(n / reduction)`` there. Nothing is stopped early: trials that are never
promoted stay paused, and the runner ends them STOPPED once nothing else can run.

Unlike the stopping type, the first trial at a rung does not go on by itself
(``floor(1 / 3) = 0``): it waits until ``reduction`` trials have reached the rung
and it ranks first of them, so decisions depend less on the order of arrival.

A trial that cannot pause (it has no checkpoint to resume from) is judged as the
stopping type would judge it, by :meth:`PromotionLadder.without_pause`: it goes on
when it ranks among the best ``ceil(n / reduction)``, else it stops.

Example:
    >>> ladder = PromotionLadder(grace=1, reduction=2, max_t=4)
    >>> ladder.judge(0, 1, 0.5).value, ladder.judge(1, 1, 0.3).value  # n=2: the best 1 goes on
    ('PAUSE', 'CONTINUE')
    >>> ladder.judge(2, 1, 0.4).value, ladder.promote([0])
    ('PAUSE', [])
    >>> ladder.judge(3, 1, 0.9).value, ladder.promote([0, 2])  # n=4: the best 2 go on
    ('PAUSE', [2])
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from hpnb.core.early_stopping.base import Decision, score_from_json, score_to_json
from hpnb.core.early_stopping.rungs import RungLadder


class PromotionLadder(RungLadder):
    """The rungs of ASHA's promotion type: the scores recorded at each, who went on, who waits.

    Args:
        grace: the step of the lowest rung.
        reduction: the factor between rungs; the best ``1/reduction`` at a rung go on.
        max_t: rungs lie strictly below it (None: no upper end).
    """

    def __init__(self, grace: int, reduction: int, max_t: int | None) -> None:
        super().__init__(grace, reduction, max_t)
        #: rung step -> trial ids that went on from it
        self.promoted: dict[int, set[int]] = {}
        #: trial id -> (rung it waits at, step and score of the result that brought it there)
        self.paused: dict[int, tuple[int, int, float]] = {}

    def judge(self, trial_id: int, step: int, score: float) -> Decision:
        return self._climb(trial_id, step, score, can_pause=True)

    def without_pause(self, trial_id: int) -> Decision:
        """The decision for a trial just told to pause that cannot (it has no checkpoint): the
        stopping type's, continue when it ranks among the best ``ceil(n / reduction)``, else stop."""
        waiting = self.paused.pop(trial_id, None)
        if waiting is None:
            return Decision.STOP if trial_id in self.stopped else Decision.CONTINUE
        _, step, score = waiting
        return self._climb(trial_id, step, score, can_pause=False)

    def promote(self, candidates: Collection[int], anyway: bool = False) -> list[int]:
        """Of the paused trials ``candidates``, those that go on now (they are recorded as promoted),
        the highest rung first, then the best score; ``anyway``: all of them."""
        chosen = [tid for tid in candidates if tid in self.paused and (
            anyway or self._ranks(tid, self.paused[tid][0], self._keep(self.paused[tid][0])))]
        chosen.sort(key=lambda tid: (-self.paused[tid][0], self.recorded[self.paused[tid][0]][tid], tid))
        for trial_id in chosen:
            level, _, _ = self.paused.pop(trial_id)
            self.promoted.setdefault(level, set()).add(trial_id)
        return chosen

    def forget_pause(self, trial_id: int) -> None:
        """``trial_id`` ended: it waits for no promotion any more (its scores stay recorded)."""
        self.paused.pop(trial_id, None)

    def _climb(self, trial_id: int, step: int, score: float, can_pause: bool) -> Decision:
        if trial_id in self.stopped:
            return Decision.STOP
        if self.max_t is not None and step >= self.max_t:
            can_pause = False  # it used its whole budget: it ends here, it waits for nothing
        for level in self.levels(up_to=step):
            rung = self.recorded.setdefault(level, {})
            rung.setdefault(trial_id, score)
            promoted = self.promoted.setdefault(level, set())
            if trial_id in promoted:
                continue
            if self._ranks(trial_id, level, self._keep(level)):
                promoted.add(trial_id)  # promoted on arrival: it need not pause to be resumed
                continue
            if can_pause:
                self.paused[trial_id] = (level, step, score)
                return Decision.PAUSE
            if not self._ranks(trial_id, level, math.ceil(len(rung) / self.reduction)):
                self.stopped.add(trial_id)
                return Decision.STOP
            promoted.add(trial_id)
        return Decision.CONTINUE

    def _keep(self, level: int) -> int:
        """How many of a rung's trials go on from it: ``floor(n / reduction)``."""
        return len(self.recorded.get(level, {})) // self.reduction

    def _ranks(self, trial_id: int, level: int, keep: int) -> bool:
        """Whether ``trial_id``'s score at ``level`` is among the best ``keep`` there (ties in its favour)."""
        rung = self.recorded[level]
        own = rung[trial_id]
        return sum(1 for other in rung.values() if other < own) < keep

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(),
                "promoted": [[level, sorted(tids)] for level, tids in self.promoted.items()],
                "paused": [[tid, level, step, score_to_json(score)]
                           for tid, (level, step, score) in self.paused.items()]}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        self.promoted = {int(level): {int(t) for t in tids} for level, tids in state.get("promoted", [])}
        self.paused = {int(tid): (int(level), int(step), score_from_json(score))
                       for tid, level, step, score in state.get("paused", [])}
