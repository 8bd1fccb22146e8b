"""What a multi-fidelity strategy knows: each trial's results at the rungs (budgets) of the search's
early-stopping rule, and the rung each new trial starts at.

The budgets are the rungs ``grace * reduction**k`` of ``asha`` or ``hyperband`` (every Hyperband
bracket's rungs lie on that ladder) and the top budget, ``max_t`` (the end of training when there is
none). A trial's result at a budget is its first reported value at or beyond that step, as the
rules record it; a completed trial's final value counts at the top budget. Under ``asha`` every
trial starts at the first rung; under ``hyperband`` at the first rung of its bracket.

Example:
    >>> from hpnb.core.early_stopping.asha import ASHA
    >>> record = FidelityRecord(Rungs.of(ASHA(grace=1, reduction=3, max_t=9)))
    >>> record.rungs.budgets()
    [1, 3, 9]
    >>> record.report(0, 4, 0.5); record.report(1, 1, 0.2)
    >>> record.at(3), record.at(1)
    ({0: 0.5}, {0: 0.5, 1: 0.2})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.early_stopping.hyperband import Hyperband
from hpnb.core.errors import SpecError

#: the top budget's key when trials have no ``max_t``: the end of their own training.
END = 2**31


@dataclass(frozen=True)
class Rungs:
    """The budget ladder of a bracketed early-stopping rule, and the bracket of each trial."""

    grace: int = 1
    reduction: int = 3
    max_t: int | None = None
    rule: StoppingRule | None = None

    @classmethod
    def of(cls, rule: StoppingRule | None) -> Rungs:
        """The ladder of ``rule`` (asha or hyperband); ``asha``'s defaults without one."""
        if rule is None:
            return cls()
        if isinstance(rule, ASHA):
            return cls(rule.ladder.grace, rule.ladder.reduction, rule.max_t, rule)
        if isinstance(rule, Hyperband):
            first = rule.brackets[0]
            return cls(first.grace, first.reduction, rule.max_t, rule)
        raise SpecError("early_stopping", "a multi-fidelity strategy needs the rungs of a bracketed rule",
                        value=rule.name, allowed="asha, hyperband")

    @property
    def top(self) -> int:
        return END if self.max_t is None else self.max_t

    def budgets(self, up_to: int | None = None) -> list[int]:
        """The rungs below ``max_t`` and the top budget (the first 20 rungs without ``max_t``)."""
        out: list[int] = []
        level = self.grace
        while level < self.top and len(out) < 20 and (up_to is None or level <= up_to):
            out.append(level)
            level *= self.reduction
        if up_to is None or up_to >= self.top:
            out.append(self.top)
        return out

    def start(self, trial_id: int) -> int:
        """The budget ``trial_id`` is first judged at: its bracket's first rung under hyperband."""
        if isinstance(self.rule, Hyperband):
            return self.rule.brackets[self.rule.bracket_of(trial_id)].grace
        return self.grace


@dataclass
class FidelityRecord:
    """Each trial's loss at each budget (lower is better; a non-finite value is the worst)."""

    rungs: Rungs
    #: budget -> {trial id: loss}
    losses: dict[int, dict[int, float]] = field(default_factory=dict)

    def report(self, trial_id: int, step: int, loss: float) -> None:
        """A trial's loss at ``step``: recorded at every budget it reaches that it has none at yet."""
        loss = loss if math.isfinite(loss) else math.inf
        for budget in self.rungs.budgets(up_to=int(step)):
            self.losses.setdefault(budget, {}).setdefault(trial_id, loss)

    def complete(self, trial_id: int, loss: float) -> None:
        """A trial that ran to its end: its final loss counts at the top budget."""
        top = self.rungs.top
        self.losses.setdefault(top, {}).setdefault(trial_id, loss if math.isfinite(loss) else math.inf)

    def at(self, budget: int) -> dict[int, float]:
        """trial id -> loss at ``budget``."""
        return dict(self.losses.get(budget, {}))

    def largest_with(self, count: int) -> int | None:
        """The largest budget with at least ``count`` finite losses, or None."""
        ready = [b for b, row in self.losses.items() if sum(math.isfinite(v) for v in row.values()) >= count]
        return max(ready, default=None)
