"""The kinds of parameter a search space holds and what they share: each maps to and from
the unit interval. Integers, categorical and fixed values are here; real numbers and their
distributions in :mod:`hpnb.core.float_parameter`; :mod:`hpnb.core.space` puts them together.

Example:
    >>> IntParameter("layers", 1, 4).grid_values()
    (1, 2, 3, 4)
    >>> CategoricalParameter("optimizer", ("sgd", "adam")).to_unit("adam")
    0.75
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hpnb.core.errors import SpecError


def _path(name: str, attr: str) -> str:
    return f"parameters.{name}.{attr}"


class Parameter(ABC):
    """One dimension of a search space."""

    name: str
    default: Any

    @property
    def is_fixed(self) -> bool:
        return False

    @property
    def is_log(self) -> bool:
        return False

    @abstractmethod
    def contains(self, value: Any) -> bool:
        """Whether ``value`` is a value this parameter can take."""

    @abstractmethod
    def from_unit(self, u: float) -> Any:
        """The value at position ``u`` in [0, 1] (its quantile for distributions)."""

    @abstractmethod
    def to_unit(self, value: Any) -> float:
        """The inverse of :meth:`from_unit`, in [0, 1]."""

    @abstractmethod
    def grid_values(self) -> tuple[Any, ...] | None:
        """Every value, when there are finitely many; None for a continuum."""

    @abstractmethod
    def center(self) -> Any:
        """The value used when this parameter is held still: ``default`` or a middle value."""

    @abstractmethod
    def describe(self) -> str:
        """A one-line human description, e.g. ``logUniform [1e-05, 0.1]``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly description that :func:`parameter_from_dict` reads back."""

    def sample(self, rng: np.random.Generator) -> Any:
        """A draw from this parameter's distribution."""
        return self.from_unit(float(rng.random()))

    def grid_size(self) -> int | None:
        values = self.grid_values()
        return None if values is None else len(values)


@dataclass(frozen=True)
class IntParameter(Parameter):
    """An integer parameter on ``low, low + step, ..., <= high`` (both ends inclusive).

    With ``log=True`` values are drawn log-uniformly (``low >= 1``).
    """

    name: str
    low: int
    high: int
    step: int = 1
    log: bool = False
    default: Any = None

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise SpecError(_path(self.name, "max"), "must be greater than min",
                            value=self.high, allowed=f"an integer above {self.low}")
        if not self.step > 0:
            raise SpecError(_path(self.name, "step"), "must be greater than 0", value=self.step)
        if self.step > self.high - self.low:
            raise SpecError(_path(self.name, "step"), "is larger than the range",
                            value=self.step, allowed=f"at most {self.high - self.low}")
        if self.log and self.low < 1:
            raise SpecError(_path(self.name, "min"), "a log-scaled integer needs min >= 1",
                            value=self.low)
        if self.default is not None and not self.contains(self.default):
            raise SpecError(_path(self.name, "default"), "is not a value of the parameter",
                            value=self.default)

    @property
    def is_log(self) -> bool:
        return self.log

    @property
    def count(self) -> int:
        return (self.high - self.low) // self.step + 1

    def _log_bounds(self) -> tuple[float, float]:
        return math.log(self.low - 0.5 * min(self.step, 1)), math.log(self.high + 0.5 * self.step)

    def from_unit(self, u: float) -> int:
        u = min(max(u, 0.0), 1.0)
        if self.log:
            lo, hi = self._log_bounds()
            k = round((math.exp(lo + u * (hi - lo)) - self.low) / self.step)
        else:
            k = math.floor(u * self.count)
        return self.low + min(max(k, 0), self.count - 1) * self.step

    def to_unit(self, value: Any) -> float:
        k = (int(value) - self.low) / self.step
        if self.log:
            lo, hi = self._log_bounds()
            return min(max((math.log(int(value)) - lo) / (hi - lo), 0.0), 1.0)
        return (k + 0.5) / self.count

    def contains(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, float, np.floating)):
            return False
        if float(value) != math.floor(float(value)):
            return False
        v = int(value)
        return self.low <= v <= self.high and (v - self.low) % self.step == 0

    def grid_values(self) -> tuple[int, ...]:
        return tuple(range(self.low, self.high + 1, self.step))

    def grid_size(self) -> int:
        return self.count

    def center(self) -> int:
        if self.default is not None:
            return int(self.default)
        return self.from_unit(0.5)

    def describe(self) -> str:
        text = f"int [{self.low}, {self.high}]"
        if self.step != 1:
            text += f" step {self.step}"
        return text + (" log" if self.log else "")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "int", "min": self.low, "max": self.high}
        if self.step != 1:
            out["step"] = self.step
        if self.log:
            out["log"] = True
        if self.default is not None:
            out["default"] = self.default
        return out


_NO_DUPLICATE: Any = object()


def _first_duplicate(values: Sequence[Any]) -> Any:
    """The first value equal to an earlier one (``==``, so 1 == 1.0 == True), or _NO_DUPLICATE.

    Linear for hashable values (a set), quadratic only among unhashable ones.
    """
    hashed: set[Any] = set()
    others: list[Any] = []
    for value in values:
        try:
            if value in hashed:
                return value
            hashed.add(value)
        except TypeError:
            if value in others:
                return value
            others.append(value)
    return _NO_DUPLICATE


@dataclass(frozen=True)
class CategoricalParameter(Parameter):
    """One of a list of values (strings, numbers, booleans)."""

    name: str
    choices: tuple[Any, ...]
    default: Any = None

    def __post_init__(self) -> None:
        if len(self.choices) == 0:
            raise SpecError(_path(self.name, "list"), "a categorical parameter needs at least one value",
                            value=list(self.choices))
        duplicate = _first_duplicate(self.choices)
        if duplicate is not _NO_DUPLICATE:
            raise SpecError(_path(self.name, "list"), "has a duplicate value", value=duplicate)
        if self.default is not None and self.default not in self.choices:
            raise SpecError(_path(self.name, "default"), "is not one of the choices",
                            value=self.default, allowed=", ".join(map(str, self.choices)))

    def from_unit(self, u: float) -> Any:
        k = min(math.floor(min(max(u, 0.0), 1.0) * len(self.choices)), len(self.choices) - 1)
        return self.choices[k]

    def to_unit(self, value: Any) -> float:
        return (self.index(value) + 0.5) / len(self.choices)

    def index(self, value: Any) -> int:
        for i, choice in enumerate(self.choices):
            if choice == value and type(choice) is type(value):
                return i
        return self.choices.index(value)

    def contains(self, value: Any) -> bool:
        return any(choice == value for choice in self.choices)

    def grid_values(self) -> tuple[Any, ...]:
        return self.choices

    def center(self) -> Any:
        return self.choices[0] if self.default is None else self.default

    def describe(self) -> str:
        return "categorical [" + ", ".join(map(str, self.choices)) + "]"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "categorical", "list": list(self.choices)}
        if self.default is not None:
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class FixedParameter(Parameter):
    """A value passed to every trial unchanged."""

    name: str
    value: Any
    default: Any = field(default=None, repr=False)

    @property
    def is_fixed(self) -> bool:
        return True

    def from_unit(self, u: float) -> Any:
        return self.value

    def to_unit(self, value: Any) -> float:
        return 0.5

    def contains(self, value: Any) -> bool:
        return bool(value == self.value)

    def grid_values(self) -> tuple[Any, ...]:
        return (self.value,)

    def center(self) -> Any:
        return self.value

    def describe(self) -> str:
        return f"fixed {self.value!r}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "fixed", "value": self.value}
