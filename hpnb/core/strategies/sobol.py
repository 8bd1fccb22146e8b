"""Sobol search: a scrambled, seeded low-discrepancy sequence over the unit cube.

Points of ``scipy.stats.qmc.Sobol`` are mapped to configurations through
:meth:`SearchSpace.from_unit`, so each parameter keeps its distribution
(log-uniform, normal quantiles, steps, categoricals). The state is the seed
and the number of points drawn; a resumed search fast-forwards the sequence.
A space whose parameters are all fixed has one configuration: it is proposed once.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    >>> s = SobolStrategy(space, seed=0)
    >>> xs = [s.suggest(i).params["x"] for i in range(4)]
    >>> sorted(int(x * 4) for x in xs)   # one point in each quarter
    [0, 1, 2, 3]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.stats import qmc

from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Strategy
from hpnb.core.trial import Suggestion


def scrambled_engine(kind: str, dimension: int, seed: int) -> qmc.QMCEngine:
    """A scrambled ``sobol`` or ``lhs`` (Latin hypercube) engine seeded with ``seed``."""
    factory = qmc.Sobol if kind == "sobol" else qmc.LatinHypercube
    rng = np.random.default_rng(seed)
    try:
        return factory(dimension, scramble=True, rng=rng)
    except TypeError:  # scipy < 1.15 names the argument ``seed``
        return factory(dimension, scramble=True, seed=rng)


def draw(engine: qmc.QMCEngine, n: int) -> np.ndarray:
    """``n`` points from ``engine``; Sobol's warning about non-powers of two is expected here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.asarray(engine.random(n), dtype=float)


def latin_hypercube(dimension: int, n: int, seed: int) -> np.ndarray:
    """(n, dimension): a scrambled Latin hypercube of the unit cube, seeded (no columns for a
    space of fixed parameters only)."""
    return draw(scrambled_engine("lhs", max(dimension, 1), seed), n)[:, :dimension]


class SobolStrategy(Strategy):
    """Successive points of one scrambled Sobol sequence."""

    learns_from_results = False
    multi_objective = True

    name = "sobol"
    options = ()

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self._drawn = 0
        self._engine = self._new_engine()

    def _new_engine(self) -> qmc.QMCEngine | None:
        if self.space.dimension == 0:
            return None
        return scrambled_engine("sobol", self.space.dimension, self.resolved_seed)

    def suggest(self, trial_id: int) -> Suggestion | None:
        if self._engine is None:
            if self._drawn >= 1:
                return None
            self._drawn += 1
            return Suggestion(self.space.center())
        point = draw(self._engine, 1)[0]
        self._drawn += 1
        return Suggestion(self.space.from_unit(point), info={"index": self._drawn - 1})

    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "seed": self.resolved_seed, "drawn": self._drawn}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.resolved_seed = int(state["seed"])
        self._drawn = int(state["drawn"])
        self._engine = self._new_engine()
        if self._engine is not None and self._drawn:
            self._engine.fast_forward(self._drawn)
