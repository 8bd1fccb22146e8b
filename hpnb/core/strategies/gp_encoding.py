"""Configurations as the Gaussian process sees them: numeric coordinates in the space's unit cube,
categorical ones as a choice's index.

Integer and stepped parameters are snapped to the unit positions of their values, so the model
and the acquisition see the configuration that will run; an inactive parameter of a conditional
space sits at 0.5 (numeric) or -1 (categorical, a value of its own).

Example:
    >>> from hpnb.core.space import CategoricalParameter, IntParameter, SearchSpace
    >>> enc = Encoding(SearchSpace((IntParameter("n", 1, 4), CategoricalParameter("c", ("a", "b")))))
    >>> x, c = enc.encode([{"n": 3, "c": "b"}])
    >>> enc.decode(x[0], c[0])
    {'n': 3, 'c': 'b'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hpnb.core.space import CategoricalParameter, SearchSpace

#: a numeric parameter with at most this many values is snapped to them.
MAX_SNAPPED = 10_000


class Encoding:
    """The numeric and categorical axes of a space's free parameters."""

    def __init__(self, space: SearchSpace) -> None:
        self.space = space
        free = space.free
        self.numeric = [p for p in free if not isinstance(p, CategoricalParameter)]
        self.categorical = [p for p in free if isinstance(p, CategoricalParameter)]
        self.sizes = np.array([len(p.choices) for p in self.categorical], dtype=int)
        self._grids = [_unit_grid(p) for p in self.numeric]

    def encode(self, configs: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        """(n, numeric) and (n, categorical) arrays of the configurations."""
        x = np.array([[p.to_unit(c[p.name]) if p.name in c else 0.5 for p in self.numeric]
                      for c in configs], dtype=float).reshape(len(configs), len(self.numeric))
        cat = np.array([[p.index(c[p.name]) if p.name in c else -1 for p in self.categorical]
                        for c in configs], dtype=int).reshape(len(configs), len(self.categorical))
        return x, cat

    def decode(self, x: np.ndarray, c: np.ndarray) -> dict[str, Any]:
        """The configuration of one encoded point (its active parameters)."""
        numeric = iter(x.tolist())
        categorical = iter(c.tolist())
        point = [next(categorical) if isinstance(p, CategoricalParameter) else next(numeric)
                 for p in self.space.free]
        units = [(max(int(v), 0) + 0.5) / len(p.choices) if isinstance(p, CategoricalParameter) else v
                 for p, v in zip(self.space.free, point, strict=True)]
        return self.space.from_unit(units)

    def snap(self, x: np.ndarray) -> np.ndarray:
        """Numeric coordinates moved to the nearest position a value of their parameter has."""
        x = np.clip(x, 0.0, 1.0)
        for j, grid in enumerate(self._grids):
            if grid is not None:
                index = np.clip(np.searchsorted(grid, x[:, j]), 1, len(grid) - 1)
                lower, upper = grid[index - 1], grid[index]
                x[:, j] = np.where(x[:, j] - lower < upper - x[:, j], lower, upper)
        return x

    def random(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` points drawn uniformly (in the unit cube, and over each parameter's choices)."""
        x = self.snap(rng.random((n, len(self.numeric))))
        c = (rng.random((n, len(self.categorical))) * self.sizes).astype(int)
        return x, c

    def neighbours(self, x: np.ndarray, c: np.ndarray, rng: np.random.Generator,
                   per_point: int, spread: float) -> tuple[np.ndarray, np.ndarray]:
        """``per_point`` perturbations of each point: a few numeric coordinates moved by a normal
        step of ``spread``, sometimes one categorical coordinate changed."""
        x = np.repeat(x, per_point, axis=0)
        c = np.repeat(c, per_point, axis=0)
        n, dims = x.shape[0], x.shape[1] + c.shape[1]
        chance = max(1.0 / max(dims, 1), 0.2)
        if x.shape[1]:
            moved = rng.random(x.shape) < chance
            x = self.snap(x + moved * rng.normal(0.0, spread, x.shape))
        if c.shape[1]:
            axis = np.asarray(rng.integers(c.shape[1], size=n))
            change = rng.random(n) < chance * c.shape[1]
            drawn = (rng.random(n) * self.sizes[axis]).astype(int)
            c = c.copy()
            c[np.arange(n)[change], axis[change]] = drawn[change]
        return x, c


def _unit_grid(p: Any) -> np.ndarray | None:
    """The sorted unit positions of a parameter's values, when it has finitely many."""
    size = p.grid_size()
    if size is None or size > MAX_SNAPPED:
        return None
    values = p.grid_values() or ()
    grid = np.unique(np.array([p.to_unit(v) for v in values], dtype=float))
    return grid if len(grid) > 1 else None
