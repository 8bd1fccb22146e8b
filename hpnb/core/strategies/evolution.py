"""Regularised (aging) evolution: Real et al., "Regularized Evolution for Image Classifier
Architecture Search" (AAAI 2019), for any space of categories, ordered lists and numbers.

- The first ``population`` suggestions are drawn from the priors (a random search).
- Every later suggestion is a child: ``sample`` members of the population are drawn at random
  (without replacement), the best of them is the parent, and the child is the parent with one
  active free parameter mutated: a category is redrawn among its other values, an ordered list
  moves to a neighbouring value, a number moves by a Gaussian step of a tenth of its range on its
  own scale (its position in the unit interval: log for a log scale, quantiles for a normal).
  A mutation that activates a parameter (``when:``) draws it from its prior; one that deactivates
  a parameter drops it.
- A child that repeats a configuration the search already ran or is running is mutated again
  (up to :data:`RETRIES` times, then drawn from the priors): in a table of finitely many
  architectures a repeat costs a trial and teaches little.
- Aging: each result joins the population in the order results arrive, and once it holds more
  than ``population`` members the *oldest* leaves, however good it was. Trials finish in any
  order (parallel workers); until the population is full, a child's parent is chosen among the
  results already back (a draw from the priors while there are none). Failed and non-finite
  results do not join; early-stopped trials join with their last value.
- Constraints (``constraints:``): a tournament prefers a feasible member to an infeasible one,
  and between infeasible members the smaller total violation (Deb's rules); the loss decides
  between feasible members.
- A resumed search takes the trials stored after its saved state into the population with their
  stored configurations, results and violations, in the order of their ids.

``population`` defaults to a fifth of the trial budget, from 10 to 100 (50 without a budget),
and ``sample`` to half the population, at least 2. Real et al. ran 100 and 25 over 20,000 models;
with 100 trials on NAS-Bench-201 (``benchmarks/architecture_blackbox.py``) a population of 20
and a sample of 10 did best of 10/3, 10/5, 15/7, 20/5, 20/10, 20/20 and 30/10: a short search
needs the stronger selection.

Example:
    >>> from hpnb.core.space import CategoricalParameter, SearchSpace
    >>> space = SearchSpace(tuple(CategoricalParameter(f"e{i}", ("conv", "pool", "skip"))
    ...                           for i in range(4)))
    >>> evolution = EvolutionStrategy(space, seed=0, population=6, sample=3)
    >>> for i in range(40):
    ...     params = evolution.suggest(i).params
    ...     evolution.observe(i, sum(v != "conv" for v in params.values()))
    >>> len(evolution.members()), sum(v != "conv" for v in evolution.best().values()) <= 1
    (6, True)
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hpnb.core.space import CategoricalParameter, OrdinalParameter, Parameter, SearchSpace
from hpnb.core.spec.values import MAX_POPULATION
from hpnb.core.strategies._options import check_int
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory, restore_rng, rng_state
from hpnb.core.strategies.pbt_explore import explored, perturb_value
from hpnb.core.trial import Suggestion, TrialState

#: the smallest population: a tournament needs members to compare.
MIN_POPULATION = 2
#: how many times a child that repeats a known configuration is mutated again.
RETRIES = 10
#: a number's mutation step: the standard deviation of its move in the unit interval.
NUMBER_STEP = 0.1
#: a number with at most this many values that its steps missed moves to a neighbouring value.
MAX_NEIGHBOUR_GRID = 100_000


def default_population(budget: int | None) -> int:
    """A fifth of ``budget``, from 10 to 100; 50 without a budget.

    Example:
        >>> default_population(100), default_population(20), default_population(None)
        (20, 10, 50)
    """
    return 50 if budget is None else min(100, max(10, budget // 5))


def default_sample(population: int) -> int:
    """Half of ``population``, at least 2 (at most the population)."""
    return min(population, max(2, population // 2))


def config_key(params: Mapping[str, Any]) -> str:
    """A hashable key of a configuration (values compared by their JSON text, types kept)."""
    return json.dumps(sorted((name, [type(v).__name__, v]) for name, v in params.items()), default=str)


def mutate_value(param: Parameter, value: Any, rng: np.random.Generator) -> Any:
    """One parameter's value mutated (see the module docstring); the same value only when the
    parameter has no other."""
    if isinstance(param, CategoricalParameter):
        others = [c for c in param.choices if c != value or type(c) is not type(value)]
        return others[int(rng.integers(len(others)))] if others else value
    if isinstance(param, OrdinalParameter):
        return perturb_value(param, value, rng)
    position = param.to_unit(value)
    for scale in (1.0, 2.0, 4.0):  # a step that lands on the same value (a short grid) grows
        target = abs(position + scale * NUMBER_STEP * float(rng.standard_normal()))
        moved = param.from_unit(target if target <= 1.0 else max(2.0 - target, 0.0))  # reflected
        if moved != value:
            return moved
    grid = param.grid_values() if (param.grid_size() or 0) <= MAX_NEIGHBOUR_GRID else None
    return _grid_neighbour(grid, value, rng) if grid else value


def _grid_neighbour(grid: Sequence[Any], value: Any, rng: np.random.Generator) -> Any:
    """The value before or after ``value`` in a number's sorted ``grid`` (at an end, the only one)."""
    index = min(range(len(grid)), key=lambda i: abs(float(grid[i]) - float(value)))
    step = int(rng.choice((-1, 1)))
    moved = index + step if 0 <= index + step < len(grid) else index - step
    return grid[moved] if 0 <= moved < len(grid) else value


def mutate(space: SearchSpace, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """``params`` with one of its active free parameters mutated; parameters that the change
    activates are drawn from their priors, the ones it deactivates are dropped.

    Example:
        >>> from hpnb.core.space import OrdinalParameter, SearchSpace
        >>> space = SearchSpace((OrdinalParameter("depth", (2, 4, 8, 16)),))
        >>> mutate(space, {"depth": 2}, np.random.default_rng(0))
        {'depth': 4}
    """
    free = [p for p in space.free if p.name in params]
    if not free:
        return dict(params)
    chosen = free[int(rng.integers(len(free)))].name
    return explored(space, params,
                     lambda p, value: mutate_value(p, value, rng) if p.name == chosen else value, rng)


class EvolutionStrategy(Strategy):
    """Aging evolution: tournament selection, one mutation per child, the oldest member removed."""

    name = "evolution"
    options = ("population", "sample")
    learns_from_constraints = True
    rebuilds_from_history = True

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self.population = check_int("population", options.get("population", default_population(budget)),
                                    MIN_POPULATION, MAX_POPULATION)
        self.sample = check_int("sample", options.get("sample", default_sample(self.population)),
                                1, self.population)
        self._rng = np.random.default_rng(self.resolved_seed)
        #: results in the order they arrived: (trial id, params, loss, total violation), oldest first.
        self._members: deque[tuple[int, dict[str, Any], float, float]] = deque()
        self._pending: dict[int, dict[str, Any]] = {}
        self._violations: dict[int, float] = {}
        self._suggested = 0
        self._last_id = -1
        #: every configuration suggested (not saved: rebuilt from the store on resume).
        self._seen: set[str] = set()

    # -- suggestions -----------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        parent = self._tournament() if self._suggested >= self.population else None
        params = self._child(parent[1]) if parent is not None else self.space.sample(self._rng)
        info = {"parent": parent[0]} if parent is not None else {}
        return self._record(trial_id, params, info)

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        suggestion = super().adopt(trial_id, given)
        return self._record(trial_id, suggestion.params, dict(suggestion.info))

    def _record(self, trial_id: int, params: dict[str, Any], info: dict[str, Any]) -> Suggestion:
        self._suggested += 1
        self._last_id = max(self._last_id, int(trial_id))
        self._pending[trial_id] = params
        self._seen.add(config_key(params))
        return Suggestion(params, info=info)

    def _tournament(self) -> tuple[int, dict[str, Any]] | None:
        """The best of ``sample`` members drawn at random (None while there are none)."""
        if not self._members:
            return None
        drawn = self._rng.choice(len(self._members), size=min(self.sample, len(self._members)), replace=False)
        best = min((self._members[int(i)] for i in drawn), key=lambda m: (m[3] > 0, m[3], m[2]))
        return best[0], best[1]

    def _child(self, parent: dict[str, Any]) -> dict[str, Any]:
        child = mutate(self.space, parent, self._rng)
        for _ in range(RETRIES):
            if config_key(child) not in self._seen:
                return child
            child = mutate(self.space, parent, self._rng)
        return child if config_key(child) not in self._seen else self.space.sample(self._rng)

    # -- results ---------------------------------------------------------------
    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        if self.constraint_count:
            self._violations[trial_id] = float(sum(max(float(v), 0.0) for v in violations))

    def observe(self, trial_id: int, value: Observed,
                state: TrialState = TrialState.COMPLETED) -> None:
        params = self._pending.pop(trial_id, None)
        violation = self._violations.pop(trial_id, 0.0)
        loss = self.loss(value)
        if params is None or loss is None:
            return
        self._members.append((trial_id, params, loss, violation))
        while len(self._members) > self.population:
            self._members.popleft()

    def best(self) -> dict[str, Any] | None:
        """The configuration of the best member of the current population (None before any result)."""
        if not self._members:
            return None
        return dict(min(self._members, key=lambda m: (m[3] > 0, m[3], m[2]))[1])

    def members(self) -> list[int]:
        """The trial ids of the population, oldest first."""
        return [m[0] for m in self._members]

    # -- state -----------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.name,
            "population": self.population,
            "sample": self.sample,
            "members": [[tid, params, loss, violation] for tid, params, loss, violation in self._members],
            "pending": {str(k): v for k, v in self._pending.items()},
            "violations": {str(k): v for k, v in self._violations.items()},
            "suggested": self._suggested,
            "last_id": self._last_id,
            "rng": rng_state(self._rng),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.population, self.sample = int(state["population"]), int(state["sample"])
        self._members = deque((int(tid), dict(params), float(loss), float(violation))
                              for tid, params, loss, violation in state["members"])
        self._pending = {int(k): dict(v) for k, v in state["pending"].items()}
        self._violations = {int(k): float(v) for k, v in state["violations"].items()}
        self._suggested, self._last_id = int(state["suggested"]), int(state["last_id"])
        restore_rng(self._rng, state["rng"])

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        """Remember every stored configuration (repeats are avoided), then learn the stored trials
        the saved state has not, each with its own stored configuration and violations."""
        self._seen.update(config_key(t.params) for t in history)
        for trial in unseen_trials(history, self._pending, self._last_id):
            if trial.trial_id not in self._pending:
                self._record(trial.trial_id, dict(trial.params), {})
            if trial.state.is_finished:
                if trial.violations:
                    self.observe_violations(trial.trial_id, trial.violations)
                self.observe(trial.trial_id, trial.value, trial.state)


def unseen_trials(history: Sequence[TrialHistory], pending: Mapping[int, Any],
                  last_id: int) -> list[TrialHistory]:
    """The stored trials a strategy restored from its saved state has not learnt: those pending
    when it was saved, and those suggested after it (ids above ``last_id``)."""
    return [t for t in history if t.trial_id in pending or t.trial_id > last_id]
