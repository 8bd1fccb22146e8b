"""NSGA-II: Optuna's genetic algorithm for one or several objectives, in ask-and-tell mode.

Each generation of ``population_size`` trials breeds the next from the best of the
trials so far, ranked by non-domination and crowding distance (so with several
objectives it spreads along the Pareto front). Options passed through (one not given
keeps Optuna's default, so a search behaves like ``optuna.samplers.NSGAIISampler``):
``population_size``, ``mutation_prob``, ``crossover_prob``, ``swapping_prob`` and
``crossover`` (``uniform``, ``blxalpha``, ``sbx``, ``vsbx``, ``undx`` or ``spx``).

The one exception is the population when it is not given: Optuna's 50, unless the budget
is under five generations of 50; then a fifth of the budget, at least 10 (100 trials: 20),
so that the search breeds a few generations instead of ending in its first or second.

Resuming: as for TPE, the store is the history (see :mod:`.optuna_sampler`). Optuna
records each trial's generation on the trial; a rebuilt study gives the completed trials
generations in the order of their ids, ``population_size`` to a generation, as an
uninterrupted search that ran them one at a time would have.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    >>> nsga2 = NSGA2Strategy(space, ("min", "min"), seed=0, population_size=4)
    >>> for i in range(12):
    ...     x = nsga2.suggest(i).params["x"]
    ...     nsga2.observe(i, (x, (1 - x) ** 2))
    >>> nsga2.state_dict()["suggested"]
    12
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hpnb.core.strategies._options import check_choice, check_int, check_number
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.optuna_sampler import OptunaStrategy
from hpnb.core.trial import TrialState

if TYPE_CHECKING:
    import optuna

#: the crossover operators of Optuna's NSGA-II, by the name a spec uses.
CROSSOVERS: dict[str, str] = {"uniform": "UniformCrossover", "blxalpha": "BLXAlphaCrossover",
                              "sbx": "SBXCrossover", "vsbx": "VSBXCrossover", "undx": "UNDXCrossover",
                              "spx": "SPXCrossover"}
#: Optuna's default population.
DEFAULT_POPULATION = 50
#: without a population given, the budget makes at least this many generations...
MIN_GENERATIONS = 5
#: ...of at least this many trials.
MIN_POPULATION = 10


def default_population(budget: int) -> int:
    """The population of a search of ``budget`` trials that gives none.

    Example:
        >>> default_population(100), default_population(1000), default_population(20)
        (20, 50, 10)
    """
    return max(MIN_POPULATION, min(DEFAULT_POPULATION, budget // MIN_GENERATIONS))


class NSGA2Strategy(OptunaStrategy):
    """Non-dominated sorting genetic algorithm II (``optuna.samplers.NSGAIISampler``)."""

    name = "nsga2"
    multi_objective = True
    needs_intermediate_values = False
    learns_from_constraints = True
    options = ("population_size", "mutation_prob", "crossover_prob", "swapping_prob", "crossover")

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if options.get("population_size") is not None:
            kwargs["population_size"] = check_int("population_size", options["population_size"], 2)
        elif self.budget is not None:
            kwargs["population_size"] = default_population(self.budget)
        for option in ("mutation_prob", "crossover_prob", "swapping_prob"):
            if options.get(option) is not None:
                kwargs[option] = check_number(option, options[option], 0.0, 1.0)
        if options.get("crossover") is not None:
            kwargs["crossover"] = check_choice("crossover", options["crossover"], tuple(CROSSOVERS))
        return kwargs

    def _make_sampler(self, seed: int) -> optuna.samplers.BaseSampler:
        from optuna.samplers import NSGAIISampler, nsgaii

        kwargs = dict(self.sampler_kwargs)
        if "crossover" in kwargs:
            kwargs["crossover"] = getattr(nsgaii, CROSSOVERS[kwargs["crossover"]])()
        return NSGAIISampler(seed=seed, **kwargs, **self._constraint_options())

    @property
    def population_size(self) -> int:
        """The population of each generation."""
        return int(self.sampler_kwargs.get("population_size", DEFAULT_POPULATION))

    def _replayed_attrs(self, finished: Sequence[TrialHistory]) -> dict[int, dict[str, Any]]:
        """The generation of each completed trial, ``population_size`` to a generation in id order
        (after the warm start's, generation 0)."""
        completed = [t.trial_id for t in finished if t.state == TrialState.COMPLETED and t.value is not None]
        first = 1 if self._prior else 0
        return {trial_id: {_generation_key(): first + index // self.population_size}
                for index, trial_id in enumerate(completed)}

    def _prior_attrs(self) -> dict[str, Any]:
        """The trials of a warm start are generation 0: the first parents."""
        return {_generation_key(): 0}


def _generation_key() -> str:
    from optuna.samplers import NSGAIISampler

    return NSGAIISampler._get_generation_key()
