"""Checks of strategy options, raising :class:`SpecError` with the option's path."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hpnb.core.errors import SpecError, closest


def _path(option: str) -> str:
    return f"strategy.{option}"


def check_int(option: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an integer from ``minimum`` to ``maximum``."""
    allowed = f"an integer >= {minimum}" + ("" if maximum is None else f", at most {maximum:,}")
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(_path(option), "must be an integer", value=value, allowed=allowed)
    if maximum is not None and value > maximum:
        raise SpecError(_path(option), f"is more than the limit of {maximum:,}", value=value, allowed=allowed)
    return int(value)


def check_number(option: str, value: Any, low: float, high: float) -> float:
    """``value`` as a float in the closed interval [low, high]."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not low <= value <= high:
        raise SpecError(_path(option), "is out of range", value=value, allowed=f"a number in [{low}, {high}]")
    return float(value)


def check_number_or_interval(option: str, value: Any, low: float, high: float) -> tuple[float, float]:
    """A number, or a ``[lo, hi]`` pair of numbers, in [low, high]; returned as an interval."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 2:
            raise SpecError(_path(option), "must be a number or a [min, max] pair", value=value)
        lo = check_number(option, value[0], low, high)
        hi = check_number(option, value[1], low, high)
        if lo > hi:
            raise SpecError(_path(option), "the pair must be [min, max] with min <= max", value=value)
        return lo, hi
    number = check_number(option, value, low, high)
    return number, number


def check_choice(option: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` when it is one of ``choices``."""
    if value not in choices:
        raise SpecError(_path(option), "unknown value", value=value, allowed=choices,
                        suggestion=closest(str(value), choices))
    return str(value)


def check_bool(option: str, value: Any) -> bool:
    """``value`` when it is a boolean."""
    if not isinstance(value, bool):
        raise SpecError(_path(option), "must be true or false", value=value)
    return value
