"""Checks of strategy options: the spec's value checks (:mod:`hpnb.core.spec.values`) with the
option's path, ``strategy.NAME``, in every :class:`SpecError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.spec.values import as_bool, as_float, as_int, choose


def _path(option: str) -> str:
    return f"strategy.{option}"


def check_int(option: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an integer from ``minimum`` to ``maximum``."""
    return as_int(value, _path(option), minimum=minimum, maximum=maximum)


def check_number(option: str, value: Any, low: float, high: float) -> float:
    """``value`` as a float in the closed interval [low, high]."""
    allowed = f"a number in [{low}, {high}]"
    number = as_float(value, _path(option), allowed=allowed)
    if not low <= number <= high:
        raise SpecError(_path(option), "is out of range", value=value, allowed=allowed)
    return number


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
    return choose(value, _path(option), choices, "value")


def check_bool(option: str, value: Any) -> bool:
    """``value`` when it is a boolean."""
    return as_bool(value, _path(option))
