"""DEHB: differential evolution across the budgets of ``asha`` or ``hyperband`` (Awad et al., 2021),
asynchronous: a configuration is proposed whenever a slot frees.

- Each budget (rung, and the top budget) has its own subpopulation, of ``population`` members at
  the first rung (default as ``de``'s: ``max(10, 5 * dimension)``, at most a tenth of the trial
  budget, at least 5) and ``reduction`` times fewer at each rung above (at least 3).
- A new trial starts at a budget (under ``hyperband`` its bracket's first rung, under ``asha``
  the first rung) and is a challenger for one member of that budget's subpopulation, targets
  taken round robin. The first trials starting at a budget, as many as its subpopulation has
  members, are the points of a scrambled Latin hypercube (as ``de``'s initial population), unless
  a budget below has a subpopulation to mutate from (the later brackets of ``hyperband``); a
  target whose place is still empty is a random point.
- Mutation draws from the *parent* budget's subpopulation, as in the paper: the rung below the
  trial's start; at the first rung (every trial under ``asha``), the highest budget whose
  subpopulation is full, whose members are the ones the rule promoted. It is
  ``a + F * (b - c)`` (rand/1, ``F`` = ``mutation``, default 0.5), crossed with the target
  (``crossover``, default 0.5): ``de``'s mutation and crossover.
- Selection per budget: a trial's result at its start budget replaces its target if it is better;
  at a budget above its start (the rule let it go on) it takes an empty place or replaces the
  worst member it beats. A non-finite result loses; failed trials are ignored.

Subpopulations are recomputed from the results (trials in the order they were suggested), so a
resumed search relearns them exactly from the store.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    >>> dehb = DEHBStrategy(space, seed=0, population=5)
    >>> for i in range(30):
    ...     x = dehb.suggest(i).params["x"]
    ...     dehb.report(i, 1, (x - 0.3) ** 2)
    >>> len(dehb.subpopulation(1)), dehb.suggest(30).info["dehb"]
    (5, 'mutant')
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hpnb.core.space import SearchSpace
from hpnb.core.strategies.de import challenger, evolution_options
from hpnb.core.strategies.multi_fidelity import MultiFidelityStrategy
from hpnb.core.strategies.sobol import latin_hypercube

#: the fewest members a subpopulation has, and a mutation needs.
MIN_MEMBERS = 3
#: the seeds of two budgets' initial designs are this far apart
DESIGN_STRIDE = 7919
#: trial id -> (the budget it starts at, how many trials started there before it)
Assigned = dict[int, tuple[int, int]]


class DEHBStrategy(MultiFidelityStrategy):
    """Subpopulations per budget evolved by differential evolution from the parent budget's."""

    name = "dehb"
    options = ("population", "mutation", "crossover")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        self.population, self.mutation, self.crossover = evolution_options(
            options, space.dimension, budget, mutation=(0.5, 0.5), crossover=0.5)

    def size(self, budget: int) -> int:
        """The number of members of ``budget``'s subpopulation."""
        level = self.rungs.budgets().index(budget) if budget in self.rungs.budgets() else 0
        return max(MIN_MEMBERS, self.population // self.rungs.reduction**level)

    def assignments(self) -> Assigned:
        """Each trial's start budget and how many trials started there before it (in the order they
        were suggested): it challenges member ``that count % size``."""
        out: Assigned = {}
        counts: dict[int, int] = {}
        for tid in sorted(self.configs):
            start = self.rungs.start(tid)
            before = counts.get(start, 0)
            counts[start] = before + 1
            out[tid] = (start, before)
        return out

    def subpopulation(self, budget: int, assigned: Assigned | None = None) -> list[int | None]:
        """The trial of each member of ``budget``'s subpopulation (None: a place not yet taken)."""
        assigned = self.assignments() if assigned is None else assigned
        members: list[int | None] = [None] * self.size(budget)
        losses = self.record.at(budget)
        for tid in sorted(losses):
            loss = losses[tid]
            start, before = assigned[tid]
            if start == budget:
                place = before % len(members)
            elif None in members:
                place = members.index(None)
            else:
                place = max(range(len(members)), key=lambda i: losses[members[i]])  # type: ignore[index]
            held = members[place]
            if math.isfinite(loss) and (held is None or loss < losses[held]):
                members[place] = tid
        return members

    def propose(self, trial_id: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        dim = self.space.dimension
        self.configs[trial_id] = {}  # counted among the trials starting where it starts
        assigned = self.assignments()
        del self.configs[trial_id]
        start, before = assigned[trial_id]
        target = before % self.size(start)
        parent, pool = self._parent_pool(start, assigned)
        initial = before < self.size(start) and parent >= start
        if pool is None or initial:
            point = self._design(start)[before] if before < self.size(start) else rng.random(dim)
            return self.space.from_unit(point), {"dehb": "random", "budget": start, "target": target}
        held = self.subpopulation(start, assigned)[target]
        point = challenger(rng, pool, rng.random(dim) if held is None else self.unit(held),
                           self.mutation, self.crossover)
        info = {"dehb": "mutant", "budget": start, "target": target, "model": parent}
        return self.space.from_unit(point), info

    def _design(self, budget: int) -> np.ndarray:
        """The initial points of ``budget``'s subpopulation: a scrambled Latin hypercube, seeded by
        the search's seed and the budget."""
        seed = self.resolved_seed + DESIGN_STRIDE * budget
        return latin_hypercube(self.space.dimension, self.size(budget), seed)

    def _parent_pool(self, start: int, assigned: Assigned) -> tuple[int, np.ndarray | None]:
        """The parent budget of trials starting at ``start`` and its members' points (None: no full
        subpopulation yet)."""
        budgets = self.rungs.budgets()
        index = budgets.index(start) if start in budgets else 0
        order = ([budgets[index - 1]] if index > 0 else []) + sorted(budgets, reverse=True)
        for budget in order:
            members = self.subpopulation(budget, assigned)
            if None not in members:
                return budget, np.array([self.unit(tid) for tid in members if tid is not None])
        return start, None
