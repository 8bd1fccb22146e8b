"""Reading single spec values: numbers (also written as strings), integers, names, durations, key sets.

Every reader takes the field path so its :class:`SpecError` names the field.
The hard limits on the size of a spec are the ``MAX_*`` constants below
(documented in ``docs/spec.md``).

Example:
    >>> as_number("1.0", "parameters.alpha")
    1.0
    >>> as_int("40", "trials", minimum=1)
    40
    >>> parse_duration("1h30m", "timeout"), describe_duration(300)
    (5400.0, '5m')
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from hpnb.core.errors import SpecError, closest

#: the largest spec text, in bytes of UTF-8, read before any parsing.
MAX_SPEC_BYTES = 1024 * 1024
#: the most YAML separators (``,`` ``:`` ``-`` ``?`` ``[`` ``{`` and line breaks) in a spec text,
#: counted before parsing: it bounds the number of YAML values, and so the parsing time.
MAX_SPEC_SEPARATORS = 50_000
#: the deepest nesting of a spec text, in levels of ``[`` ``{`` collections or of block indentation,
#: measured before parsing: PyYAML builds documents recursively and runs out of stack a few hundred
#: levels down.
MAX_SPEC_DEPTH = 64
#: the most parameters a spec may declare.
MAX_PARAMETERS = 1_000
#: the most values one categorical (or discrete) parameter may list.
MAX_CATEGORICAL_VALUES = 10_000
#: the most trials a search may run (``trials``, and the size of a grid or sweep).
MAX_TRIALS = 1_000_000
#: the largest grid ``cap`` a spec may set.
MAX_GRID_CAP = MAX_TRIALS
#: the largest population of differential evolution (it is drawn up front).
MAX_POPULATION = 10_000
#: the most trials that may run at once (``parallel``).
MAX_PARALLEL = 10_000
#: the most retries of one trial (``retries``).
MAX_RETRIES = 100
#: the largest seed (it must fit a signed 64-bit integer).
MAX_SEED = 2**63 - 1
#: the most steps a ``step`` may cut a continuous range into.
MAX_STEPS = 2**53
#: the longest experiment name.
MAX_NAME_LENGTH = 128
#: the longest ``timeout`` or ``trial_timeout``, in seconds (30 days).
MAX_DURATION = 30 * 24 * 3600.0

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
    if isinstance(number, float) and not math.isfinite(number):
        raise SpecError(path, "must be a finite number", value=value, allowed=allowed)
    return number


def as_float(value: Any, path: str, *, allowed: str = "a number") -> float:
    """A finite float; an integer too large for a double is refused."""
    number = as_number(value, path, allowed=allowed)
    try:
        return float(number)
    except OverflowError:
        raise SpecError(path, "is too large for a double (at most about 1.8e308)", value=value,
                        allowed=allowed) from None


def _int_allowed(minimum: int | None, maximum: int | None) -> str:
    allowed = "an integer" if minimum is None else f"an integer >= {minimum}"
    return allowed if maximum is None else f"{allowed}, at most {maximum:,}"


def as_int(value: Any, path: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (``3``, ``"3"``, ``3.0``) from ``minimum`` to ``maximum``."""
    allowed = _int_allowed(minimum, maximum)
    number = as_number(value, path, allowed=allowed)
    if number != math.floor(number):
        raise SpecError(path, "must be a whole number", value=value, allowed=allowed)
    if minimum is not None and number < minimum:
        raise SpecError(path, f"must be at least {minimum}", value=value, allowed=allowed)
    if maximum is not None and number > maximum:
        raise SpecError(path, f"is more than the limit of {maximum:,}", value=value, allowed=allowed)
    return int(number)


def as_optional_int(value: Any, path: str, *, minimum: int | None = None,
                    maximum: int | None = None) -> int | None:
    return None if value is None else as_int(value, path, minimum=minimum, maximum=maximum)


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


_NAME_CHARS = re.compile(r"[A-Za-z0-9_.-]+")
_NAME_ALLOWED = (f"1 to {MAX_NAME_LENGTH} letters, digits, '_', '.' or '-', not starting with '-', "
                 "and not '.' or '..'")


def experiment_name_problem(name: object) -> str | None:
    """What is wrong with ``name`` as an experiment name, or None when it is a valid one."""
    if not isinstance(name, str):
        return "must be a string"
    if not name:
        return "must not be empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name):,} characters long, more than the limit of {MAX_NAME_LENGTH}"
    if name in (".", ".."):
        return "must not be '.' or '..'"
    if name.startswith("-"):
        return "must not start with '-' (it would read as a command-line option)"
    if "/" in name or "\\" in name:
        return "must not contain a path separator"
    if any(not char.isprintable() for char in name):
        return "must not contain control characters"
    if not _NAME_CHARS.fullmatch(name):
        return "may only contain letters, digits, '_', '.' and '-'"
    return None


def check_experiment_name(name: object, field: str = "name") -> str:
    """``name`` when it is a valid experiment name, else a :class:`SpecError` naming ``field``.

    The one name rule of the spec, the Python API, the command line and the store.

    Example:
        >>> check_experiment_name("mlp-lr.v2")
        'mlp-lr.v2'
        >>> check_experiment_name("../etc")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        hpnb.core.errors.SpecError: name: must not contain a path separator (got '../etc'); allowed: ...
    """
    problem = experiment_name_problem(name)
    if problem is not None:
        raise SpecError(field, problem, value=name, allowed=_NAME_ALLOWED)
    assert isinstance(name, str)
    return name


_DURATION_TEXT = re.compile(r"(?:(\d+(?:\.\d*)?)d)?(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m)?"
                            r"(?:(\d+(?:\.\d*)?)s)?")
_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
_DURATION_ALLOWED = (f"a number of seconds > 0, or a duration such as 90s, 30m, 2h, 1h30m or 1d "
                     f"(units d, h, m, s), at most {MAX_DURATION / 86400:g} days")


def _duration_seconds(value: Any) -> float | None:
    """The seconds ``value`` spells, or None when it is not a duration."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    text = re.sub(r"(?<=[dhms])\s+", "", value.strip())
    number = number_from_text(text)
    if number is not None:
        return float(number)
    match = _DURATION_TEXT.fullmatch(text)
    if not text or match is None:
        return None
    return sum(float(part) * unit for part, (_, unit) in zip(match.groups(), _UNITS, strict=True) if part)


def parse_duration(value: Any, field: str) -> float:
    """A duration in seconds: a number of seconds, or text such as ``90s``, ``30m``, ``2h``, ``1h30m``.

    Raises:
        SpecError: naming ``field`` for anything else, a duration <= 0 or one above 30 days.
    """
    try:
        seconds = _duration_seconds(value)
    except OverflowError:
        seconds = math.inf
    if seconds is None or math.isnan(seconds):
        raise SpecError(field, "is not a duration", value=value, allowed=_DURATION_ALLOWED)
    if not seconds > 0:
        raise SpecError(field, "must be more than 0 seconds", value=value, allowed=_DURATION_ALLOWED)
    if seconds > MAX_DURATION:
        raise SpecError(field, f"is longer than the limit of {describe_duration(MAX_DURATION)}",
                        value=value, allowed=_DURATION_ALLOWED)
    return seconds


def parse_optional_duration(value: Any, field: str) -> float | None:
    return None if value is None else parse_duration(value, field)


def describe_duration(seconds: float) -> str:
    """``seconds`` in the largest unit that divides it: ``5m``, ``90s``, ``2h``, ``1.5s``.

    Example:
        >>> [describe_duration(s) for s in (300, 90, 7200, 5400, 1.5, 86400)]
        ['5m', '90s', '2h', '90m', '1.5s', '1d']
    """
    for suffix, unit in _UNITS[:-1]:
        if seconds >= unit and seconds % unit == 0:
            return f"{seconds / unit:.0f}{suffix}"
    return f"{seconds:.0f}s" if seconds == int(seconds) else f"{seconds:.6g}s"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__
