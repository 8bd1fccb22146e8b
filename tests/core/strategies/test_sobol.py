"""The sobol strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import numpy as np

from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.sobol import SobolStrategy
from hpnb.testing import StrategySuite


class TestSobolSuite(StrategySuite):
    strategy = "sobol"





def test_points_are_more_even_than_random_ones() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))
    strategy = SobolStrategy(space, seed=0)
    points = np.array([[s.params["x"], s.params["y"]] for s in (strategy.suggest(i) for i in range(64))
                       if s is not None])
    cells = np.floor(points * 8).astype(int)
    # 64 scrambled Sobol points put exactly one point in each of the 64 cells of an 8x8 grid.
    assert len({tuple(c) for c in cells}) == 64


def test_integer_axis_is_covered_evenly() -> None:
    space = SearchSpace((IntParameter("layers", 1, 4),))
    strategy = SobolStrategy(space, seed=5)
    values = [strategy.suggest(i).params["layers"] for i in range(16)]  # type: ignore[union-attr]
    assert sorted(values) == [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4
