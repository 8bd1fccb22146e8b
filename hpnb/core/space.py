"""Search spaces: the parameters a search varies and how each one is drawn.

Every free parameter maps to and from the unit interval, so that strategies
working in the unit hypercube (sobol, differential evolution) and strategies
drawing from priors (random) share one definition of each distribution.

Example:
    >>> import numpy as np
    >>> space = SearchSpace((
    ...     FloatParameter("lr", "logUniform", low=1e-5, high=1e-1),
    ...     IntParameter("layers", 1, 4),
    ...     CategoricalParameter("optimizer", ("sgd", "adam")),
    ...     FixedParameter("batch", 64),
    ... ))
    >>> config = space.sample(np.random.default_rng(0))
    >>> space.contains(config)
    True
    >>> sorted(config)
    ['batch', 'layers', 'lr', 'optimizer']
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpnb.core.conditions import Branches, Condition, active_values, check_conditions, evaluation_order
from hpnb.core.errors import SpecError
from hpnb.core.float_parameter import DISTRIBUTIONS, Distribution, FloatParameter
from hpnb.core.ordinal_parameter import OrdinalParameter
from hpnb.core.parameter_kinds import CategoricalParameter, FixedParameter, IntParameter, Parameter, _path
from hpnb.core.spec.values import MAX_GRID_CAP

__all__ = ["DEFAULT_GRID_CAP", "DISTRIBUTIONS", "CategoricalParameter", "Distribution", "FixedParameter",
           "FloatParameter", "IntParameter", "OrdinalParameter", "Parameter", "SearchSpace",
           "parameter_from_dict"]

DEFAULT_GRID_CAP = 100_000

def parameter_from_dict(name: str, data: Mapping[str, Any]) -> Parameter:
    """Rebuild a parameter from :meth:`Parameter.to_dict` output.

    Example:
        >>> p = IntParameter("layers", 1, 4)
        >>> parameter_from_dict("layers", p.to_dict()) == p
        True
    """
    kind = data["type"]
    if kind == "fixed":
        return FixedParameter(name, data["value"])
    if kind == "categorical":
        return CategoricalParameter(name, tuple(data["list"]), default=data.get("default"))
    if kind == "discrete":
        return OrdinalParameter(name, tuple(data["list"]), default=data.get("default"))
    if kind == "int":
        return IntParameter(name, int(data["min"]), int(data["max"]), step=int(data.get("step", 1)),
                            log=bool(data.get("log", False)), default=data.get("default"))
    return FloatParameter(name, data["distribution"], low=data.get("min"), high=data.get("max"),
                          mu=data.get("mu"), sigma=data.get("sigma"), step=data.get("step"),
                          default=data.get("default"))


@dataclass(frozen=True)
class SearchSpace:
    """An ordered set of uniquely named parameters, some of them active only under
    ``conditions`` (see :mod:`hpnb.core.conditions`): configurations hold active parameters only."""

    parameters: tuple[Parameter, ...]
    conditions: tuple[Condition, ...] = ()

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise SpecError(f"parameters.{name}", "duplicate parameter name", value=name)
        check_conditions(self.parameters, self.conditions)
        by_parameter = {c.parameter: c for c in self.conditions}
        object.__setattr__(self, "_by_parameter", by_parameter)
        object.__setattr__(self, "_order", evaluation_order(names, self.conditions) if by_parameter else ())

    @property
    def is_conditional(self) -> bool:
        return bool(self.conditions)

    def condition(self, name: str) -> Condition | None:
        """The condition of parameter ``name``, or None when it is always active."""
        by_parameter: dict[str, Condition] = self._by_parameter  # type: ignore[attr-defined]
        return by_parameter.get(name)

    @property
    def evaluation_order(self) -> tuple[Parameter, ...]:
        """The parameters, each after those its condition names."""
        if not self.conditions:
            return self.parameters
        return tuple(self[name] for name in self._order)  # type: ignore[attr-defined]

    def active(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` with the parameters that are inactive left out, in the order of the space.

        Example:
            >>> from hpnb.core.conditions import Condition
            >>> space = SearchSpace((CategoricalParameter("opt", ("sgd", "adam")),
            ...                      FloatParameter("momentum", low=0.5, high=0.9)),
            ...                     conditions=(Condition("momentum", (("opt", ("sgd",)),)),))
            >>> space.active({"opt": "adam", "momentum": 0.7})
            {'opt': 'adam'}
        """
        if not self.conditions:
            return dict(values)
        kept = active_values(self._order, self._by_parameter, values)  # type: ignore[attr-defined]
        return {name: kept[name] for name in self.names if name in kept}

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self.parameters)

    def __len__(self) -> int:
        return len(self.parameters)

    def __getitem__(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    @property
    def free(self) -> tuple[Parameter, ...]:
        """The parameters that vary (all but the fixed ones): the unit-cube axes."""
        return tuple(p for p in self.parameters if not p.is_fixed)

    @property
    def dimension(self) -> int:
        return len(self.free)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """One configuration drawn from every active parameter's distribution."""
        return self.active({p.name: p.sample(rng) for p in self.parameters})

    def contains(self, config: Mapping[str, Any]) -> bool:
        """Whether ``config`` names exactly the parameters active in it, with values they can take."""
        if not set(config) <= set(self.names):
            return False
        if not all(self[name].contains(value) for name, value in config.items()):
            return False
        return set(config) == set(self.active({**self.center(complete=True), **config}))

    def to_unit(self, config: Mapping[str, Any]) -> np.ndarray:
        """The position of ``config`` in the unit hypercube of the free parameters
        (an inactive parameter, missing from ``config``, at 0.5)."""
        return np.array([p.to_unit(config[p.name]) if p.name in config else 0.5 for p in self.free],
                        dtype=float)

    def from_unit(self, point: Sequence[float] | np.ndarray) -> dict[str, Any]:
        """The configuration at ``point`` of the unit hypercube (fixed values added): one axis per
        free parameter, active or not; the coordinates of inactive ones are left unused."""
        if len(point) != self.dimension:
            raise ValueError(f"expected a point of dimension {self.dimension}, got {len(point)}")
        values = iter(float(u) for u in point)
        return self.active({p.name: (p.from_unit(0.5) if p.is_fixed else p.from_unit(next(values)))
                            for p in self.parameters})

    def center(self, complete: bool = False) -> dict[str, Any]:
        """Every active parameter at its default (or middle) value; every parameter with ``complete``."""
        values = {p.name: p.center() for p in self.parameters}
        return values if complete else self.active(values)

    def completed(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """``config`` with the parameters it leaves out at their center, then the inactive ones dropped."""
        return self.active({**self.center(complete=True), **config})

    def grid_size(self, cap: int = MAX_GRID_CAP) -> int:
        """The number of grid points, counted without enumerating them (a conditional space's
        branches are enumerated, up to ``cap`` of them).

        Raises:
            SpecError: when a free parameter is continuous (it needs a ``step``), or a
                conditional space has more than ``cap`` branches.
        """
        if self.conditions:
            return self.branches(cap).size
        size = 1
        for n in self._grid_sizes():
            size *= n
        return size

    def _grid_sizes(self) -> list[int]:
        sizes = []
        for p in self.parameters:
            n = p.grid_size()
            if n is None:
                raise SpecError(_path(p.name, "step"),
                                "a grid needs a step (or a list) for every continuous parameter",
                                allowed="add step: or use a random/sobol/tpe strategy")
            sizes.append(n)
        return sizes

    def branches(self, cap: int = MAX_GRID_CAP) -> Branches:
        """The grid of a conditional space, branch by branch (see :mod:`hpnb.core.conditions`).

        Raises:
            SpecError: a continuous parameter without a step, or more than ``cap`` branches.
        """
        self._grid_sizes()
        return Branches(self.parameters, self.conditions, cap)

    def iter_grid(self, cap: int = DEFAULT_GRID_CAP) -> Iterator[dict[str, Any]]:
        """Every grid point in a fixed order (the last parameter varies fastest).

        Raises:
            SpecError: when the grid has more than ``cap`` points.
        """
        size = self.grid_size()
        if size > cap:
            raise SpecError("strategy", f"the grid has {size:,} points, more than the cap of {cap:,}",
                            allowed="fewer values per parameter, larger steps, or a sampling strategy")
        if self.conditions:
            branches = self.branches()
            yield from (branches.point(k) for k in range(size))
            return
        axes = [p.grid_values() or () for p in self.parameters]
        for combo in itertools.product(*axes):
            yield dict(zip(self.names, combo, strict=True))

    def to_dict(self) -> dict[str, dict[str, Any]]:
        out = {p.name: p.to_dict() for p in self.parameters}
        for condition in self.conditions:
            out[condition.parameter]["when"] = condition.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, Any]]) -> SearchSpace:
        from hpnb.core.conditions import parse_when

        conditions = tuple(parse_when(name, d["when"]) for name, d in data.items() if "when" in d)
        return cls(tuple(parameter_from_dict(name, d) for name, d in data.items()), conditions=conditions)
