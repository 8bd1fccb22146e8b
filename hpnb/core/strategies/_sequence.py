"""A strategy that walks a finite, precomputed sequence of configurations.

Fixed, grid and range searches know every configuration up front; their only
state is how far along the sequence they are, so resuming is exact. Results
do not change what comes next, so ``observe`` has nothing to learn.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Strategy
from hpnb.core.trial import Suggestion


class SequenceStrategy(Strategy):
    """Base of strategies that propose ``config_at(0), config_at(1), ...`` and then stop."""

    learns_from_results = False
    multi_objective = True

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self._next = 0

    @abstractmethod
    def count(self) -> int:
        """The length of the sequence."""

    @abstractmethod
    def config_at(self, index: int) -> dict[str, Any]:
        """The configuration at position ``index`` (``0 <= index < count()``)."""

    def suggest(self, trial_id: int) -> Suggestion | None:
        if self._next >= self.count():
            return None
        index = self._next
        self._next += 1
        return Suggestion(dict(self.config_at(index)), info={"index": index})

    def max_trials(self) -> int | None:
        return self.count()

    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "next": self._next, "seed": self.resolved_seed}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._next = int(state["next"])
        self.resolved_seed = int(state["seed"])
