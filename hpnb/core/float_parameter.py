"""Real-valued parameters: uniform, log-uniform, normal and log-normal, optionally bounded and
stepped, mapped to and from the unit interval through their distribution's CDF.

Example:
    >>> p = FloatParameter("lr", "logUniform", low=1e-4, high=1e-2)
    >>> round(p.from_unit(0.5), 6), round(p.to_unit(1e-3), 6)
    (0.001, 0.5)
"""

from __future__ import annotations

import math
import statistics
import sys
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from hpnb.core.errors import SpecError
from hpnb.core.parameter_kinds import Parameter, _path
from hpnb.core.spec.values import MAX_STEPS

Distribution = Literal["uniform", "logUniform", "normal", "logNormal"]
DISTRIBUTIONS: tuple[str, ...] = ("uniform", "logUniform", "normal", "logNormal")
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
