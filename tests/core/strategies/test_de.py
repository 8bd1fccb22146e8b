"""The de strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies.de import DifferentialEvolutionStrategy, default_population
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite


class TestDifferentialEvolutionSuite(StrategySuite):
    strategy = "de"
    optimises = True





def _space(dim: int = 3) -> SearchSpace:
    return SearchSpace(tuple(FloatParameter(f"x{i}", low=0.0, high=1.0) for i in range(dim)))


def _point(params: dict[str, float]) -> list[float]:
    return [params[f"x{i}"] for i in range(len(params))]


def test_initial_population_is_a_latin_hypercube() -> None:
    de = DifferentialEvolutionStrategy(_space(), seed=0, population=8)
    points = np.array([_point(de.suggest(i).params) for i in range(8)])  # type: ignore[union-attr]
    for axis in points.T:
        assert sorted(np.floor(axis * 8).astype(int)) == list(range(8))


def test_challengers_target_members_round_robin() -> None:
    de = DifferentialEvolutionStrategy(_space(), seed=0, population=6)
    targets = [de.suggest(i).info["target"] for i in range(15)]  # type: ignore[union-attr]
    assert targets == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2]


def test_a_member_is_replaced_only_by_a_better_challenger() -> None:
    de = DifferentialEvolutionStrategy(_space(), seed=1, population=5)
    initial = [de.suggest(i) for i in range(5)]
    for i in range(5):
        de.observe(i, 10.0 + i)
    challengers = {i: de.suggest(i) for i in range(5, 9)}  # targets 0, 1, 2, 3
    de.observe(5, 9.0)                       # better than member 0 (10): replaces it
    de.observe(6, 12.0)                      # worse than member 1 (11): loses
    de.observe(7, None, TrialState.FAILED)   # failures lose
    de.observe(8, float("nan"))              # so do non-finite values
    state = de.state_dict()
    assert state["losses"] == [9.0, 11.0, 12.0, 13.0, 14.0]
    space = _space()
    members = [space.from_unit(m) for m in state["members"]]
    assert members[0] == challengers[5].params  # type: ignore[union-attr]
    assert [members[i] for i in (1, 2, 3)] == [initial[i].params for i in (1, 2, 3)]  # type: ignore[union-attr]


def test_results_arriving_before_the_initial_member_count_too() -> None:
    de = DifferentialEvolutionStrategy(_space(), seed=2, population=5)
    for i in range(6):
        de.suggest(i)                         # five initial members and a challenger for member 0
    de.observe(5, 3.0)                        # the challenger returns first: it takes slot 0
    de.observe(0, 4.0)                        # the initial member is worse: it does not
    assert de.state_dict()["losses"][0] == 3.0
    de.observe(1, 1.0, TrialState.STOPPED)    # a stopped trial competes with its last value
    assert de.state_dict()["losses"][1] == 1.0


def test_max_mode_prefers_larger_values() -> None:
    de = DifferentialEvolutionStrategy(_space(), seed=3, population=5, mode="max")
    for i in range(6):
        de.suggest(i)
    for i in range(5):
        de.observe(i, float(i))
    de.observe(5, 2.0)                        # the challenger of member 0 (value 0)
    assert de.state_dict()["losses"][0] == -2.0


def test_default_population_follows_dimension_and_budget() -> None:
    assert default_population(2, None) == 10
    assert default_population(6, None) == 30
    assert default_population(6, 100) == 10
    assert default_population(6, 20) == 5


@pytest.mark.parametrize(("option", "value"), [
    ("population", 3), ("population", 2.5), ("mutation", 3.0), ("mutation", [1.0, 0.5]),
    ("crossover", 1.5), ("variant", "rand/2"), ("init", "halton"),
])
def test_bad_options_name_the_option(option: str, value: object) -> None:
    with pytest.raises(SpecError) as info:
        DifferentialEvolutionStrategy(_space(), **{option: value})  # type: ignore[arg-type]
    assert info.value.path == f"strategy.{option}"


def test_rand_variant_also_converges() -> None:
    space = _space(2)
    de = DifferentialEvolutionStrategy(space, seed=0, population=8, variant="rand/1", mutation=0.8)
    for tid in range(150):
        params = de.suggest(tid).params  # type: ignore[union-attr]
        de.observe(tid, (params["x0"] - 0.2) ** 2 + (params["x1"] - 0.7) ** 2)
    best = de.best()
    assert best is not None
    assert abs(best["x0"] - 0.2) < 0.05 and abs(best["x1"] - 0.7) < 0.05
