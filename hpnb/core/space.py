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
import math
import statistics
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from hpnb.core.conditions import Branches, Condition, active_values, check_conditions, evaluation_order
from hpnb.core.errors import SpecError
from hpnb.core.spec.values import MAX_GRID_CAP, MAX_STEPS

Distribution = Literal["uniform", "logUniform", "normal", "logNormal"]
DISTRIBUTIONS: tuple[str, ...] = ("uniform", "logUniform", "normal", "logNormal")
DEFAULT_GRID_CAP = 100_000
# Keeps inverse CDFs finite for unbounded normal parameters.
_UNIT_EPS = 1e-12
# The reach of a normal draw, in sigmas: |_ndtri(_UNIT_EPS)| is about 7.03.
_SIGMAS = 8.0
# The log of the largest and of the smallest positive normal double.
_LOG_MAX, _LOG_MIN = math.log(sys.float_info.max), math.log(sys.float_info.min)
# (spec key, attribute) of the numbers of a FloatParameter.
_NUMBER_FIELDS = (("min", "low"), ("max", "high"), ("mu", "mu"), ("sigma", "sigma"), ("step", "step"))


_STANDARD_NORMAL = statistics.NormalDist()


def _ndtr(x: float) -> float:
    """The standard normal CDF (stdlib only: importing scipy would cost every command ~0.5 s)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _ndtri(p: float) -> float:
    """The inverse of :func:`_ndtr`, for 0 < p < 1."""
    return _STANDARD_NORMAL.inv_cdf(p)


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


def _decimals(step: float) -> int:
    """Decimals enough to print values on a ``step`` grid without float noise."""
    return max(0, 6 - math.floor(math.log10(step)))


@dataclass(frozen=True)
class FloatParameter(Parameter):
    """A real-valued parameter.

    ``uniform``/``logUniform`` need ``low`` and ``high``; ``normal`` needs ``mu``
    and ``sigma`` (of the value), ``logNormal`` needs ``mu`` and ``sigma`` of
    ``log(value)``; for those two ``low``/``high`` are optional truncation bounds.
    With ``step``, values are quantised to ``anchor + k * step`` where the
    anchor is ``low`` (or 0 without a lower bound).
    """

    name: str
    distribution: Distribution = "uniform"
    low: float | None = None
    high: float | None = None
    mu: float | None = None
    sigma: float | None = None
    step: float | None = None
    default: Any = None

    def __post_init__(self) -> None:
        if self.distribution not in DISTRIBUTIONS:
            raise SpecError(_path(self.name, "distribution"), "unknown distribution",
                            value=self.distribution, allowed=DISTRIBUTIONS)
        for key, attr in _NUMBER_FIELDS:
            number = getattr(self, attr)
            if number is not None and not (isinstance(number, (int, float)) and math.isfinite(number)):
                raise SpecError(_path(self.name, key), "must be a finite number", value=number)
        if self.distribution in ("uniform", "logUniform"):
            for attr in ("low", "high"):
                if getattr(self, attr) is None:
                    key = "min" if attr == "low" else "max"
                    raise SpecError(_path(self.name, key),
                                    f"a {self.distribution} parameter needs {key}")
        else:
            if self.mu is None:
                raise SpecError(_path(self.name, "mu"), f"a {self.distribution} parameter needs mu")
            if self.sigma is None:
                raise SpecError(_path(self.name, "sigma"),
                                f"a {self.distribution} parameter needs a scale, sigma")
            if not self.sigma > 0:
                raise SpecError(_path(self.name, "sigma"), "must be greater than 0", value=self.sigma)
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise SpecError(_path(self.name, "max"), "must be greater than min",
                            value=self.high, allowed=f"a number above {self.low}")
        if self.is_log and self.low is not None and self.low <= 0:
            raise SpecError(_path(self.name, "min"), f"{self.distribution} bounds must be > 0",
                            value=self.low)
        if self.is_log and self.high is not None and self.high <= 0:
            raise SpecError(_path(self.name, "max"), f"{self.distribution} bounds must be > 0",
                            value=self.high)
        self._check_finite()
        self._check_step()
        if self.default is not None and not self.contains(self.default):
            raise SpecError(_path(self.name, "default"), "is not a value of the parameter",
                            value=self.default)

    def _reach(self) -> tuple[float, float]:
        """The warped interval draws fall in: the bounds, or mu +- 8 sigma when unbounded."""
        lo, hi = self._warped_bounds()
        if self.mu is not None and self.sigma is not None:
            lo = max(lo if lo is not None else -math.inf, self.mu - _SIGMAS * self.sigma)
            hi = min(hi if hi is not None else math.inf, self.mu + _SIGMAS * self.sigma)
        assert lo is not None and hi is not None
        return lo, hi

    def _check_finite(self) -> None:
        """Refuse a parameter whose draws (or their spread) would overflow a double."""
        lo, hi = self._reach()
        if self.distribution == "logNormal" and not _LOG_MIN <= lo <= hi <= _LOG_MAX:
            raise SpecError(_path(self.name, "sigma"), "draws exp(mu +- 8 sigma) would overflow a double",
                            value=self.sigma,
                            allowed=f"mu +- 8 sigma within [{_LOG_MIN:.1f}, {_LOG_MAX:.1f}], or bounds")
        if not math.isfinite(hi - lo):
            key = "max" if self.distribution in ("uniform", "logUniform") else "sigma"
            raise SpecError(_path(self.name, key), "the range is too wide: its width overflows a double",
                            value=getattr(self, "high" if key == "max" else key),
                            allowed="max - min (or 16 sigma) below about 1.8e308")

    def _check_step(self) -> None:
        if self.step is None:
            return
        if not self.step > 0:
            raise SpecError(_path(self.name, "step"), "must be greater than 0", value=self.step)
        # a step of exactly the range, computed in floats (width / 1), may exceed max - min by a few ulps
        if self.low is not None and self.high is not None and \
                self.step > self.high - self.low + 4 * math.ulp(max(abs(self.low), abs(self.high))):
            raise SpecError(_path(self.name, "step"), "is larger than the range",
                            value=self.step, allowed=f"at most {self.high - self.low:g}")
        lo, hi = (self._unwarp(x) for x in self._reach())
        anchor = self.low if self.low is not None else 0.0
        reach = max(abs(lo - anchor), abs(hi - anchor))
        if not reach / self.step <= MAX_STEPS:
            raise SpecError(_path(self.name, "step"), f"is too small: it cuts the range into "
                            f"{reach / self.step:.3g} steps, more than the limit of 2**53 (MAX_STEPS)",
                            value=self.step, allowed=f"a step of at least {reach / MAX_STEPS:.3g}")

    @property
    def is_log(self) -> bool:
        return self.distribution in ("logUniform", "logNormal")

    # -- the continuous transform ------------------------------------------------
    def _warp(self, value: float) -> float:
        return math.log(value) if self.is_log else value

    def _unwarp(self, x: float) -> float:
        return math.exp(x) if self.is_log else x

    def _warped_bounds(self) -> tuple[float | None, float | None]:
        lo = None if self.low is None else self._warp(self.low)
        hi = None if self.high is None else self._warp(self.high)
        return lo, hi

    def _cdf_bounds(self) -> tuple[float, float]:
        """Standard-normal CDF at the truncation bounds (normal families only)."""
        assert self.mu is not None and self.sigma is not None
        lo, hi = self._warped_bounds()
        a = 0.0 if lo is None else _ndtr((lo - self.mu) / self.sigma)
        b = 1.0 if hi is None else _ndtr((hi - self.mu) / self.sigma)
        return a, b

    def _continuous_from_unit(self, u: float) -> float:
        u = min(max(u, 0.0), 1.0)
        if self.distribution in ("uniform", "logUniform"):
            lo, hi = self._warped_bounds()
            assert lo is not None and hi is not None
            return self._unwarp(lo + u * (hi - lo))
        assert self.mu is not None and self.sigma is not None
        a, b = self._cdf_bounds()
        p = min(max(a + u * (b - a), _UNIT_EPS), 1.0 - _UNIT_EPS)
        x = self.mu + self.sigma * _ndtri(p)
        lo, hi = self._warped_bounds()
        x = x if lo is None else max(x, lo)
        x = x if hi is None else min(x, hi)
        return self._unwarp(x)

    def _quantise(self, value: float) -> float:
        if self.step is None:
            return value
        anchor = self.low if self.low is not None else 0.0
        k = round((value - anchor) / self.step)
        if self.high is not None and anchor + k * self.step > self.high + 1e-12 * abs(self.high):
            k -= 1
        if self.low is not None and k < 0:
            k = 0
        if self.is_log and anchor + k * self.step <= 0:
            k += 1
        return round(anchor + k * self.step, _decimals(self.step))

    def from_unit(self, u: float) -> float:
        return self._quantise(self._continuous_from_unit(u))

    def to_unit(self, value: Any) -> float:
        x = self._warp(float(value))
        if self.distribution in ("uniform", "logUniform"):
            lo, hi = self._warped_bounds()
            assert lo is not None and hi is not None
            return min(max((x - lo) / (hi - lo), 0.0), 1.0)
        assert self.mu is not None and self.sigma is not None
        a, b = self._cdf_bounds()
        p = _ndtr((x - self.mu) / self.sigma)
        return min(max((p - a) / (b - a), 0.0), 1.0)

    def contains(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return False
        v = float(value)
        if not math.isfinite(v) or (self.is_log and v <= 0):
            return False
        # values on a step grid are rounded to about a millionth of the step (see _decimals)
        tol = max(1e-9 * max(1.0, abs(v)), 1e-6 * (self.step or 0.0))
        if (self.low is not None and v < self.low - tol) or (self.high is not None and v > self.high + tol):
            return False
        if self.step is not None:
            anchor = self.low if self.low is not None else 0.0
            k = (v - anchor) / self.step
            return abs(k - round(k)) < 1e-6
        return True

    def grid_size(self) -> int | None:
        # Counted, not enumerated: a fine step over a wide range has too many values to list.
        if self.step is None or self.low is None or self.high is None:
            return None
        return math.floor((self.high - self.low) / self.step + 1e-9) + 1

    def grid_values(self) -> tuple[float, ...] | None:
        n = self.grid_size()
        if n is None:
            return None
        assert self.low is not None and self.step is not None
        return tuple(round(self.low + k * self.step, _decimals(self.step)) for k in range(n))

    def center(self) -> float:
        if self.default is not None:
            return float(self.default)
        return self.from_unit(0.5)

    def describe(self) -> str:
        if self.distribution in ("uniform", "logUniform"):
            text = f"{self.distribution} [{self.low:g}, {self.high:g}]"
        else:
            text = f"{self.distribution}(mu={self.mu:g}, sigma={self.sigma:g})"
            if self.low is not None or self.high is not None:
                lo = "-inf" if self.low is None else f"{self.low:g}"
                hi = "inf" if self.high is None else f"{self.high:g}"
                text += f" in [{lo}, {hi}]"
        if self.step is not None:
            text += f" step {self.step:g}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "double", "distribution": self.distribution}
        for key, attr in (("min", "low"), ("max", "high"), ("mu", "mu"), ("sigma", "sigma"),
                          ("step", "step"), ("default", "default")):
            if getattr(self, attr) is not None:
                out[key] = getattr(self, attr)
        return out


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
