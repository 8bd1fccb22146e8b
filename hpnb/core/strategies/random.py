"""Random search: independent draws from every parameter's distribution.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),))
    >>> a, b = RandomStrategy(space, seed=1), RandomStrategy(space, seed=1)
    >>> a.suggest(0) == b.suggest(0)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Strategy, restore_rng, rng_state
from hpnb.core.trial import Suggestion


class RandomStrategy(Strategy):
    """Draws with a seeded numpy Generator; its state is the generator's state."""

    learns_from_results = False
    multi_objective = True

    name = "random"
    options = ()

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self._rng = np.random.default_rng(self.resolved_seed)
        self._suggested = 0

    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        self._suggested += 1
        return Suggestion(self.space.sample(self._rng))

    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "rng": rng_state(self._rng), "suggested": self._suggested}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        restore_rng(self._rng, state["rng"])
        self._suggested = int(state["suggested"])
