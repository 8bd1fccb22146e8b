"""The nsga2 strategy: the shared suite, its options, and parity with Optuna's own sampler."""

from __future__ import annotations

from typing import Any, ClassVar

import optuna
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.strategies.nsga2 import NSGA2Strategy
from hpnb.testing import StrategySuite
from hpnb.testing.multi_objective_suite import TWO_BY_TWO, front_objectives


class TestNSGA2Suite(StrategySuite):
    strategy = "nsga2"
    strategy_options: ClassVar[dict[str, Any]] = {"population_size": 10}
    optimises = True
    copies_parents = True  # Optuna's NSGA-II may pick one parent twice and mutate none of its values


def test_suggests_what_optunas_own_sampler_does_seed_for_seed() -> None:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(directions=["minimize", "maximize"],
                                sampler=optuna.samplers.NSGAIISampler(population_size=6, seed=3))
    distributions = {"x": optuna.distributions.FloatDistribution(0.0, 1.0),
                     "y": optuna.distributions.FloatDistribution(0.0, 1.0)}
    strategy = NSGA2Strategy(TWO_BY_TWO, ("min", "max"), seed=3, population_size=6)
    for tid in range(30):
        trial = study.ask(distributions)
        ours = strategy.suggest(tid)
        assert ours is not None and ours.params == trial.params
        study.tell(trial, list(front_objectives(trial.params)))
        strategy.observe(tid, front_objectives(ours.params))


@pytest.mark.parametrize(("options", "path"), [
    ({"population_size": 1}, "strategy.population_size"),
    ({"mutation_prob": 1.5}, "strategy.mutation_prob"),
    ({"crossover": "blend"}, "strategy.crossover"),
])
def test_bad_options_name_their_field(options: dict[str, object], path: str) -> None:
    with pytest.raises(SpecError) as info:
        NSGA2Strategy(TWO_BY_TWO, ("min", "min"), seed=0, **options)
    assert info.value.path == path


@pytest.mark.parametrize("crossover", ["uniform", "blxalpha", "sbx", "vsbx", "undx", "spx"])
def test_every_crossover_suggests_inside_the_space(crossover: str) -> None:
    strategy = NSGA2Strategy(TWO_BY_TWO, ("min", "max"), seed=0, population_size=4, crossover=crossover)
    for tid in range(16):
        suggestion = strategy.suggest(tid)
        assert suggestion is not None and TWO_BY_TWO.contains(suggestion.params)
        strategy.observe(tid, front_objectives(suggestion.params))
