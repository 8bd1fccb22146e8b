"""Several objectives: the shared suite for every strategy that runs them, the refusal for the others."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from hpnb.core.strategies import STRATEGIES, multi_objective_strategies
from hpnb.testing.multi_objective_suite import MultiObjectiveSuite, check_refuses_several_objectives


class TestRandom(MultiObjectiveSuite):
    strategy = "random"


class TestSobol(MultiObjectiveSuite):
    strategy = "sobol"


class TestGrid(MultiObjectiveSuite):
    strategy = "grid"


class TestFixed(MultiObjectiveSuite):
    strategy = "fixed"


class TestRange(MultiObjectiveSuite):
    strategy = "range"


class TestTPE(MultiObjectiveSuite):
    strategy = "tpe"
    learns = True


class TestNSGA2(MultiObjectiveSuite):
    strategy = "nsga2"
    strategy_options: ClassVar[dict[str, Any]] = {"population_size": 10}
    learns = True


class TestAuto(MultiObjectiveSuite):
    strategy = "auto"  # runs tpe with several objectives (nsga2 beyond 250 trials)
    learns = True


def test_every_strategy_that_runs_several_objectives_has_the_suite() -> None:
    suites = {cls.strategy for cls in MultiObjectiveSuite.__subclasses__()}
    assert suites == set(multi_objective_strategies())


@pytest.mark.parametrize("name", sorted(set(STRATEGIES) - set(multi_objective_strategies())))
def test_the_others_refuse_two_objectives_naming_the_strategies_that_can(name: str) -> None:
    check_refuses_several_objectives(name)
