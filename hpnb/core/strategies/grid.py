"""Grid search: every combination of every parameter's values.

Each continuous parameter needs a ``step`` (categoricals and integers have
their values already). The grid is counted before anything is enumerated, and
refused above a cap (option ``cap``, default 100,000 points, at most
:data:`~hpnb.core.spec.values.MAX_GRID_CAP`). Points come in a
fixed order, the last parameter varying fastest, or in a seeded random order
with ``shuffle: true``. Point ``k`` is computed from ``k`` directly, so a grid
is never held in memory. A conditional space's grid holds each valid
combination of active parameters once (see :mod:`hpnb.core.conditions`).

Example:
    >>> from hpnb.core.space import CategoricalParameter, IntParameter, SearchSpace
    >>> space = SearchSpace((IntParameter("a", 1, 2), CategoricalParameter("b", ("x", "y"))))
    >>> grid = GridStrategy(space)
    >>> grid.max_trials(), grid.suggest(0).params, grid.suggest(1).params
    (4, {'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'})
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hpnb.core.errors import SpecError
from hpnb.core.space import DEFAULT_GRID_CAP, SearchSpace
from hpnb.core.spec.values import MAX_GRID_CAP
from hpnb.core.strategies._options import check_bool, check_int
from hpnb.core.strategies._sequence import SequenceStrategy


class GridStrategy(SequenceStrategy):
    """Every grid point once, in order or shuffled."""

    name = "grid"
    options = ("shuffle", "cap")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        self.shuffle = check_bool("shuffle", options.get("shuffle", False))
        cap = check_int("cap", options.get("cap", DEFAULT_GRID_CAP), 1, MAX_GRID_CAP)
        self._branches = space.branches(cap) if space.is_conditional else None
        self._size = space.grid_size() if self._branches is None else self._branches.size
        if self._size > cap:
            raise SpecError("strategy", f"the grid has {self._size:,} points, more than the cap of {cap:,}",
                            allowed="fewer values per parameter, larger steps, or a sampling strategy")
        self._axes = [] if self._branches is not None else [p.grid_values() or () for p in space.parameters]
        self._order: np.ndarray | None = None

    def count(self) -> int:
        return self._size

    def _position(self, index: int) -> int:
        if not self.shuffle:
            return index
        if self._order is None:
            self._order = np.random.default_rng(self.resolved_seed).permutation(self._size)
        return int(self._order[index])

    def config_at(self, index: int) -> dict[str, Any]:
        position = self._position(index)
        if self._branches is not None:
            return self._branches.point(position)
        values: list[Any] = []
        for axis in reversed(self._axes):
            position, k = divmod(position, len(axis))
            values.append(axis[k])
        return dict(zip(self.space.names, reversed(values), strict=True))

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self._order = None
