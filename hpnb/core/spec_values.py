"""Reading single spec values: numbers (also written as strings), integers, names, key sets.

Every reader takes the field path so its :class:`SpecError` names the field.

Example:
    >>> as_number("1.0", "parameters.alpha")
    1.0
    >>> as_int("40", "trials", minimum=1)
    40
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from hpnb.core.errors import SpecError, closest

_INT_TEXT = re.compile(r"^[+-]?\d+$")
_FLOAT_TEXT = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


def number_from_text(text: str) -> int | float | None:
    """The number a string spells (``"3"`` -> 3, ``"1e-5"`` -> 1e-05), or None."""
    text = text.strip()
    if _INT_TEXT.match(text):
        return int(text)
    if _FLOAT_TEXT.match(text):
        return float(text)
    return None


def as_number(value: Any, path: str, *, allowed: str = "a number") -> int | float:
    """A finite int or float; numeric strings are read as numbers, booleans refused."""
    if isinstance(value, bool):
        raise SpecError(path, "must be a number, not a boolean", value=value, allowed=allowed)
    number = number_from_text(value) if isinstance(value, str) else value
    if not isinstance(number, (int, float)):
        raise SpecError(path, "must be a number", value=value, allowed=allowed)
    if not math.isfinite(number):
        raise SpecError(path, "must be a finite number", value=value, allowed=allowed)
    return number


def as_float(value: Any, path: str, *, allowed: str = "a number") -> float:
    return float(as_number(value, path, allowed=allowed))


def as_int(value: Any, path: str, *, minimum: int | None = None) -> int:
    """An integer (``3``, ``"3"``, ``3.0``) of at least ``minimum``."""
    allowed = "an integer" if minimum is None else f"an integer >= {minimum}"
    number = as_number(value, path, allowed=allowed)
    if number != math.floor(number):
        raise SpecError(path, "must be a whole number", value=value, allowed=allowed)
    if minimum is not None and number < minimum:
        raise SpecError(path, f"must be at least {minimum}", value=value, allowed=allowed)
    return int(number)


def as_optional_int(value: Any, path: str, *, minimum: int | None = None) -> int | None:
    return None if value is None else as_int(value, path, minimum=minimum)


def as_bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise SpecError(path, "must be true or false", value=value, allowed="true, false")
    return value


def as_text(value: Any, path: str, *, allowed: str = "a non-empty string") -> str:
    """A non-empty string (numbers are not silently turned into names)."""
    if not isinstance(value, str) or not value.strip():
        raise SpecError(path, "must be a non-empty string", value=value, allowed=allowed)
    return value.strip()


def as_mapping(value: Any, path: str, *, allowed: str = "a mapping of key: value") -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(path, f"must be a mapping, not a {_kind(value)}", value=value, allowed=allowed)
    for key in value:
        if not isinstance(key, str):
            raise SpecError(_join(path, str(key)), "keys must be strings", value=key)
    return value


def check_keys(data: Mapping[str, Any], path: str, allowed: Iterable[str]) -> None:
    """Refuse a key of ``data`` that is not ``allowed``, suggesting the closest one."""
    allowed = tuple(allowed)
    for key in data:
        if key not in allowed:
            raise SpecError(_join(path, key), "unknown key", value=key, allowed=allowed,
                            suggestion=closest(key, allowed))


def choose(value: Any, path: str, choices: Iterable[str], what: str) -> str:
    """``value`` when it is one of ``choices``, else an error with a "did you mean"."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise SpecError(path, f"unknown {what}", value=value, allowed=choices,
                        suggestion=closest(str(value), choices))
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__
