"""The cmaes strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from typing import Any

import optuna

from hpnb.core.strategies.cmaes import CMAESStrategy
from hpnb.testing import StrategySuite


class TestCMAESSuite(StrategySuite):
    strategy = "cmaes"
    optimises = True






def test_same_values_as_optunas_own_sampler(optuna_values: Any, strategy_values: Any) -> None:
    ours = strategy_values(CMAESStrategy, 30, seed=2, popsize=6)
    assert ours == optuna_values(optuna.samplers.CmaEsSampler(seed=2, popsize=6), 30)
