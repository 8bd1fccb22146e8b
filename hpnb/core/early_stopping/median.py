"""The median stopping rule: stop a trial that is worse than the median of the others.

At each decision step ``t`` (``grace``, ``grace + every``, ``grace + 2 * every``, ...) a
trial's statistic, its best value so far or
the running average of its values so far (``use``), is compared with the median of
the same statistic of every *other* trial that has reached step ``t``, each taken
over its results at or before ``t``. With at least ``min_trials`` such trials, a
trial strictly worse than that median stops. Finished and stopped trials keep
counting. A trial that reports a step it already passed (it was restarted from a
checkpoint) replaces its results from that step on.

The rule judges every ``every`` steps rather than at every step because a trial waits
for the verdict at each decision step (one round trip to the driver, a few
milliseconds): ``every: 5`` keeps that wait to one report in five, and a stop still
lands at the step it was decided at. ``every: 1`` judges at every step.

Example:
    >>> rule = MedianStopping(mode="min", min_trials=2, every=1)
    >>> for trial in (0, 1):
    ...     _ = rule.on_result(trial, 1, 0.5)
    >>> rule.on_result(2, 1, 0.9).value
    'STOP'
"""

from __future__ import annotations

import statistics
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.base import (
    Decision,
    Mode,
    StoppingRule,
    check_int,
    option_path,
    score_from_json,
    score_to_json,
)
from hpnb.core.errors import SpecError

USES: tuple[str, ...] = ("best", "average")


@dataclass
class _History:
    """One trial's scores (lower is better) by step, with running best and sum for quick lookups."""

    steps: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)

    def add(self, step: int, score: float) -> None:
        if self.steps and step <= self.steps[-1]:
            keep = bisect_right(self.steps, step - 1)
            for column in (self.steps, self.scores, self.best, self.total):
                del column[keep:]
        self.steps.append(step)
        self.scores.append(score)
        self.best.append(min(score, self.best[-1]) if self.best else score)
        self.total.append(score + self.total[-1] if self.total else score)

    def statistic(self, step: int, use: str) -> float | None:
        """Best or average score over the results at or before ``step`` (None when there is none)."""
        last = bisect_right(self.steps, step) - 1
        if last < 0:
            return None
        return self.best[last] if use == "best" else self.total[last] / (last + 1)

    def reached(self, step: int) -> bool:
        return bool(self.steps) and self.steps[-1] >= step

    def before(self, step: int) -> int | None:
        """The latest recorded step below ``step`` (None when there is none)."""
        index = bisect_right(self.steps, step - 1) - 1
        return self.steps[index] if index >= 0 else None


class MedianStopping(StoppingRule):
    """``rule: median``.

    Options:
        grace: the first step at which a trial is judged (default 1).
        every: steps between two judgements after ``grace`` (default 5).
        min_trials: how many other trials must have reached the step before a trial is
            judged there (default 3).
        use: ``best`` (best value so far, default) or ``average`` (running average).
        max_t: per-trial budget in steps.
    """

    name = "median"
    options = ("max_t", "grace", "every", "min_trials", "use")

    def __init__(self, mode: Mode = "min", max_t: int | None = None, seed: int | None = None,
                 grace: int = 1, min_trials: int = 3, use: str = "best", every: int = 5,
                 **options: Any) -> None:
        super().__init__(mode, max_t, seed, **options)
        self.grace = check_int("grace", grace, 0)
        self.every = check_int("every", every, 1)
        self.points = DecisionPoints.every_from(self.every, start=self.grace)
        self.min_trials = check_int("min_trials", min_trials, 1)
        if use not in USES:
            raise SpecError(option_path("use"), "unknown statistic", value=use, allowed=USES)
        self.use = use
        self._trials: dict[int, _History] = {}

    def judge(self, trial_id: int, step: int, value: float) -> Decision:
        history = self._trials.setdefault(trial_id, _History())
        previous = history.before(step)
        history.add(step, self.score(value))
        if not self.points.crossed(previous, step):
            return Decision.CONTINUE
        others = [other.statistic(step, self.use) for tid, other in self._trials.items()
                  if tid != trial_id and other.reached(step)]
        known = [s for s in others if s is not None]
        if len(known) < self.min_trials:
            return Decision.CONTINUE
        own = history.statistic(step, self.use)
        assert own is not None
        return Decision.STOP if own > statistics.median(known) else Decision.CONTINUE

    def decision_points(self) -> DecisionPoints:
        return super().decision_points() | self.points

    def state_dict(self) -> dict[str, Any]:
        return {"trials": [[tid, [[s, score_to_json(v)] for s, v in zip(h.steps, h.scores)]]
                           for tid, h in self._trials.items()]}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._trials = {}
        for tid, rows in state.get("trials", []):
            history = self._trials.setdefault(int(tid), _History())
            for step, stored in rows:
                history.add(int(step), score_from_json(stored))
