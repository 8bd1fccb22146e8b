"""Ordered lists of numbers: ``depth: [2, 4, 8, 16]`` is one of those values, and the values have
an order that strategies and views see.

Each value stands at a position in the unit interval: its place on the scale on which the values
are the most evenly spaced. Values spaced by ratios (``8, 16, 32, 64``; ``1e-4, 1e-3, 1e-2``) are
placed by their logarithm, values spaced by differences (``0, 0.3, 0.6``; ``1, 2, 3``) by their
value; when both fit alike, the log is taken when the values span an order of magnitude or more.
Values that neither scale spaces within :data:`MAX_UNEVEN` (``0, 1e-5, 1e-4, 1e-3``, whose 0 has
no log; ``1, 2, 3, 100``) are placed by their rank: their order alone. Each value owns the
stretch of the interval nearer to it than to its neighbours, with half a gap beyond each end, so
evenly spaced values get equal shares (as :class:`IntParameter` gives its integers) and a draw
from the interval is a draw on the values' scale.

Example:
    >>> depth = OrdinalParameter("depth", (16, 2, 4, 8))
    >>> depth.values, depth.is_log
    ((2, 4, 8, 16), True)
    >>> [round(depth.to_unit(v), 3) for v in depth.values]
    [0.125, 0.375, 0.625, 0.875]
    >>> depth.from_unit(0.3)
    4
"""

from __future__ import annotations

import bisect
import itertools
import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

from hpnb.core.errors import SpecError
from hpnb.core.parameter_kinds import _NO_DUPLICATE, Parameter, _first_duplicate, _path

#: spacing within this share of each other counts as even (tables list values rounded).
EVEN_TOLERANCE = 1e-3
#: a ratio of largest to smallest value from which equally even scales are read as a log scale.
LOG_SPAN = 10.0
#: the most uneven spacing (largest gap over smallest) a scale may have; beyond it, the rank.
MAX_UNEVEN = 4.0
Scale = Literal["log", "linear", "rank"]


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (a boolean is not)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _unevenness(points: list[float]) -> float:
    """The largest gap between neighbouring ``points`` over the smallest (1: evenly spaced)."""
    gaps = [b - a for a, b in itertools.pairwise(points)]
    return max(gaps) / min(gaps)


def list_scale(values: tuple[float, ...]) -> Scale:
    """The scale on which sorted, distinct ``values`` are the most evenly spaced (see above).

    Example:
        >>> list_scale((8, 16, 32, 64)), list_scale((0.0, 0.3, 0.6)), list_scale((1, 10))
        ('log', 'linear', 'log')
        >>> list_scale((0, 1e-5, 1e-4, 1e-3))
        'rank'
    """
    linear = _unevenness([float(v) for v in values])
    logarithmic = _unevenness([math.log(v) for v in values]) if values[0] > 0 else math.inf
    if math.isclose(linear, logarithmic, rel_tol=EVEN_TOLERANCE):
        scale: Scale = "log" if values[-1] / values[0] >= LOG_SPAN else "linear"
    else:
        scale = "log" if logarithmic < linear else "linear"
    return scale if min(linear, logarithmic) <= MAX_UNEVEN else "rank"


def _points(values: tuple[float, ...], scale: Scale) -> list[float]:
    if scale == "rank":
        return [float(i) for i in range(len(values))]
    return [math.log(v) if scale == "log" else float(v) for v in values]


@dataclass(frozen=True)
class OrdinalParameter(Parameter):
    """One of a list of numbers, in their order (the values are kept sorted)."""

    name: str
    values: tuple[Any, ...]
    default: Any = None

    def __post_init__(self) -> None:
        where = _path(self.name, "list")
        bad = [v for v in self.values if not is_number(v)]
        if bad:
            raise SpecError(where, "an ordered list holds numbers only", value=bad[0],
                            allowed="finite numbers, or ordered: false for a list of labels")
        if len(self.values) < 2:
            raise SpecError(where, "an ordered list needs at least two values", value=list(self.values),
                            allowed="two or more numbers (one value is a fixed parameter)")
        duplicate = _first_duplicate(self.values)
        if duplicate is not _NO_DUPLICATE:
            raise SpecError(where, "has a duplicate value", value=duplicate, allowed="each value once")
        object.__setattr__(self, "values", tuple(sorted(self.values)))
        object.__setattr__(self, "_places", {value: i for i, value in enumerate(self.values)})
        if self.default is not None and not self.contains(self.default):
            raise SpecError(_path(self.name, "default"), "is not one of the values", value=self.default,
                            allowed=", ".join(map(str, self.values)))
        scale = list_scale(self.values)
        points = _points(self.values, scale)
        lo = points[0] - (points[1] - points[0]) / 2
        hi = points[-1] + (points[-1] - points[-2]) / 2
        units = tuple((p - lo) / (hi - lo) for p in points)
        object.__setattr__(self, "_scale", scale)
        object.__setattr__(self, "_units", units)
        object.__setattr__(self, "_edges", tuple((a + b) / 2 for a, b in itertools.pairwise(units)))
        object.__setattr__(self, "_even", _unevenness(points) <= 1 + EVEN_TOLERANCE)

    @property
    def scale(self) -> Scale:
        """``log``, ``linear`` or ``rank``: how the values are placed on the unit interval."""
        return self._scale  # type: ignore[attr-defined]

    @property
    def is_log(self) -> bool:
        return self.scale == "log"

    @property
    def evenly_spaced(self) -> bool:
        """Whether the values are evenly spaced on their scale (their index is then their position)."""
        return bool(self._even)  # type: ignore[attr-defined]

    @property
    def low(self) -> Any:
        return self.values[0]

    @property
    def high(self) -> Any:
        return self.values[-1]

    def index(self, value: Any) -> int:
        """The place of ``value`` among the sorted values; ValueError when it is not one."""
        try:  # 2 and 2.0 hash alike; a boolean is not a number here
            place = None if isinstance(value, bool) else self._places.get(value)  # type: ignore[attr-defined]
        except TypeError:  # unhashable
            place = None
        if place is None:
            raise ValueError(f"{value!r} is not a value of {self.name}")
        return int(place)

    def from_unit(self, u: float) -> Any:
        return self.values[bisect.bisect_left(self._edges, min(max(u, 0.0), 1.0))]  # type: ignore[attr-defined]

    def to_unit(self, value: Any) -> float:
        return float(self._units[self.index(value)])  # type: ignore[attr-defined]

    def contains(self, value: Any) -> bool:
        try:
            self.index(value)
        except ValueError:
            return False
        return True

    def grid_values(self) -> tuple[Any, ...]:
        return self.values

    def center(self) -> Any:
        return self.from_unit(0.5) if self.default is None else self.default

    def describe(self) -> str:
        return "ordered [" + ", ".join(map(str, self.values)) + "]" + {"log": " log", "linear": "",
                                                                         "rank": " by rank"}[self.scale]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "discrete", "list": list(self.values)}
        if self.default is not None:
            out["default"] = self.default
        return out
