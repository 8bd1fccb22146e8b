"""The random strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import numpy as np
from scipy import stats

from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies.random import RandomStrategy
from hpnb.testing import StrategySuite


class TestRandomSuite(StrategySuite):
    strategy = "random"





def test_draws_follow_the_parameter_distribution() -> None:
    space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=1.0),))
    strategy = RandomStrategy(space, seed=0)
    logs = [np.log10(strategy.suggest(i).params["lr"]) for i in range(2000)]  # type: ignore[union-attr]
    assert stats.kstest(logs, stats.uniform(loc=-4, scale=4).cdf).pvalue > 0.001
