"""Asynchronous differential evolution in the unit cube of the search space.

The population lives in the unit hypercube of the free parameters (see
:meth:`SearchSpace.to_unit`), so integers, categoricals and non-uniform
distributions all map through :meth:`SearchSpace.from_unit`.

- The first ``population`` suggestions are the initial members, spread by a
  scrambled Latin hypercube (``init: lhs``, the default) or Sobol (``init: sobol``).
- Every later suggestion is a challenger for one member, targets taken round
  robin. Its mutant is ``a + F * (b - c)`` with ``a`` the best member so far
  (``variant: best/1``, the default) or a random one (``rand/1``), and ``b``,
  ``c`` random distinct members (both variants pick them apart from the target);
  ``F`` is ``mutation`` (a number, or a
  ``[min, max]`` pair drawn anew for each challenger: dither, default
  ``[0.5, 1.0]``). Binomial crossover with the target keeps each coordinate of
  the mutant with probability ``crossover`` (default 0.7, and at least one);
  the result is clipped into the cube. In a conditional space a challenger
  keeps the target's coordinates of the parameters inactive in it, and a
  parameter inactive in the target but active in the challenger is drawn from
  its prior (a uniform coordinate).
- There is no generation barrier: when a result arrives, the trial replaces
  the member it was made for if it is better than that member's current value.
  An initial member that has no result yet, or failed, counts as infinitely bad,
  so challengers may run before the whole initial population is back.
  Failed and non-finite results simply lose. Early-stopped trials compete with
  their last value.

``population`` defaults to ``max(10, 5 * dimension)``, reduced to a tenth of
the trial budget when one is known (but never below 5), so that a budget
allows about ten rounds of challengers. The defaults (``best/1``, this
population) come from ``benchmarks/quality.py``: with 100 trials on Hartmann6,
``rand/1`` with a population of 25 did no better than random search.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=-1.0, high=1.0),))
    >>> de = DifferentialEvolutionStrategy(space, seed=0, population=5)
    >>> for i in range(60):
    ...     x = de.suggest(i).params["x"]
    ...     de.observe(i, x * x)
    >>> abs(de.best()["x"]) < 0.05
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hpnb.core.space import SearchSpace
from hpnb.core.spec.values import MAX_POPULATION
from hpnb.core.strategies._options import check_choice, check_int, check_number_or_interval
from hpnb.core.strategies.base import Observed, Strategy, restore_rng, rng_state
from hpnb.core.strategies.sobol import draw, scrambled_engine
from hpnb.core.trial import Suggestion, TrialState

VARIANTS = ("best/1", "rand/1")
INITS = ("lhs", "sobol")
MIN_POPULATION = 5


def default_population(dimension: int, budget: int | None) -> int:
    """``max(10, 5 * dimension)``, at most a tenth of ``budget``, at least 5."""
    size = max(10, 5 * dimension)
    if budget is not None:
        size = min(size, budget // 10)
    return max(MIN_POPULATION, size)


def evolution_options(options: dict[str, Any], dimension: int, budget: int | None,
                      mutation: tuple[float, float], crossover: float
                      ) -> tuple[int, tuple[float, float], float]:
    """The checked ``population``, ``mutation`` and ``crossover`` options, with these defaults
    (the population's: :func:`default_population`)."""
    population = check_int("population", options.get("population", default_population(dimension, budget)),
                           MIN_POPULATION, MAX_POPULATION)
    return (population,
            check_number_or_interval("mutation", options.get("mutation", list(mutation)), 0.0, 2.0),
            check_number_or_interval("crossover", options.get("crossover", crossover), 0.0, 1.0)[0])


def challenger(rng: np.random.Generator, pool: np.ndarray, target: np.ndarray,
               mutation: tuple[float, float], crossover: float, base: np.ndarray | None = None,
               skip: int | None = None) -> np.ndarray:
    """A challenger for ``target``: the mutant ``base + F * (b - c)`` of three distinct random rows
    ``a``, ``b``, ``c`` of ``pool`` (row ``skip`` left out; ``base`` is ``a`` unless given), ``F``
    drawn in ``mutation``, crossed with ``target`` (each coordinate kept with probability
    ``crossover``, at least one) and clipped into the unit cube. ``pool`` needs three rows.

    Example:
        >>> pool = np.array([[0.1, 0.1], [0.5, 0.5], [0.9, 0.2], [0.3, 0.8]])
        >>> point = challenger(np.random.default_rng(0), pool, pool[0], (0.5, 0.5), 1.0, skip=0)
        >>> bool(((point >= 0) & (point <= 1)).all())
        True
    """
    others = [i for i in range(len(pool)) if i != skip]
    a, b, c = rng.choice(others, size=3, replace=False)
    low, high = mutation
    factor = low if low == high else float(rng.uniform(low, high))
    mutant = (pool[a] if base is None else base) + factor * (pool[b] - pool[c])
    dim = mutant.shape[0]
    keep = rng.random(dim) < crossover
    keep[rng.integers(dim)] = True
    return np.clip(np.where(keep, mutant, target), 0.0, 1.0)


class DifferentialEvolutionStrategy(Strategy):
    """Differential evolution without generations: members are replaced as results arrive."""

    name = "de"
    options = ("population", "mutation", "crossover", "variant", "init")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self.population, self.mutation, self.crossover = evolution_options(
            options, space.dimension, budget, mutation=(0.5, 1.0), crossover=0.7)
        self.variant = check_choice("variant", options.get("variant", "best/1"), VARIANTS)
        self.init = check_choice("init", options.get("init", "lhs"), INITS)
        self._rng = np.random.default_rng(self.resolved_seed)
        dim = max(space.dimension, 1)
        self._members = draw(scrambled_engine(self.init, dim, self.resolved_seed), self.population)
        self._losses: list[float | None] = [None] * self.population
        self._pending: dict[int, tuple[int, list[float]]] = {}
        self._suggested = 0

    # -- suggestions -----------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        if self._suggested < self.population:
            target = self._suggested
            point = self._members[target].copy()
        else:
            target = (self._suggested - self.population) % self.population
            point = self._challenger(target)
            if self.space.is_conditional:
                point = self._activated(point, self._members[target])
        self._suggested += 1
        self._pending[trial_id] = (target, point.tolist())
        params = self.space.from_unit(point[: self.space.dimension])
        return Suggestion(params, info={"target": target})

    def _best_index(self) -> int | None:
        known = [(loss, i) for i, loss in enumerate(self._losses) if loss is not None]
        return min(known)[1] if known else None

    def _challenger(self, target: int) -> np.ndarray:
        best = self._best_index()
        base = self._members[best] if self.variant == "best/1" and best is not None else None
        return challenger(self._rng, self._members, self._members[target], self.mutation, self.crossover,
                          base=base, skip=target)

    def _activated(self, point: np.ndarray, target: np.ndarray) -> np.ndarray:
        """``point`` with the target's coordinates where a parameter is inactive in the challenger,
        and a draw from the prior where it was inactive in the target and is active now."""
        dim = self.space.dimension
        was = self.space.from_unit(target[:dim])
        now = self.space.from_unit(point[:dim])
        point = point.copy()
        for i, p in enumerate(self.space.free):
            if p.name not in now:
                point[i] = target[i]
            elif p.name not in was:
                point[i] = self._rng.random()
        return point

    # -- results ---------------------------------------------------------------
    def observe(self, trial_id: int, value: Observed,
                state: TrialState = TrialState.COMPLETED) -> None:
        entry = self._pending.pop(trial_id, None)
        if entry is None:
            return
        target, point = entry
        loss = self.loss(value)
        if loss is None:
            return
        current = self._losses[target]
        if current is None or loss < current:
            self._members[target] = np.asarray(point, dtype=float)
            self._losses[target] = loss

    def best(self) -> dict[str, Any] | None:
        """The configuration of the best member so far (None before any result)."""
        index = self._best_index()
        if index is None:
            return None
        return self.space.from_unit(self._members[index][: self.space.dimension])

    # -- state -----------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "members": self._members.tolist(),
            "losses": list(self._losses),
            "pending": {str(k): [t, p] for k, (t, p) in self._pending.items()},
            "suggested": self._suggested,
            "rng": rng_state(self._rng),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._members = np.asarray(state["members"], dtype=float)
        self.population = len(self._members)
        self._losses = [None if v is None else float(v) for v in state["losses"]]
        self._pending = {int(k): (int(t), list(p)) for k, (t, p) in state["pending"].items()}
        self._suggested = int(state["suggested"])
        restore_rng(self._rng, state["rng"])
