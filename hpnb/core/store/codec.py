"""How Python values are written to and read from the store's columns.

Dicts (spec, params, metrics, strategy and scheduler state, event data) are
JSON text. Non-finite floats inside them round-trip exactly: they are written
with the ``NaN`` / ``Infinity`` / ``-Infinity`` tokens that Python's ``json``
reads back (not strict JSON; anything that serves these dicts to a browser
must turn them into ``null``). Numeric columns (``value``, ``best``) are SQLite
REALs: ``inf`` and ``-inf`` round-trip, ``NaN`` is stored as NULL and read back
as ``None``, which every reader treats as "no usable value".
"""

from __future__ import annotations

import json
import math
from typing import Any

from hpnb.core.store.store_errors import StoreError


def _plain(value: Any) -> Any:
    # numpy scalars and arrays (from samplers and training code) have item()/tolist().
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any, field: str) -> str:
    """JSON text of ``value``; a clear :class:`StoreError` naming ``field`` if it cannot be stored.

    Example:
        >>> dumps({"lr": float("nan")}, "params")
        '{"lr": NaN}'
    """
    try:
        return json.dumps(value, default=_plain, allow_nan=True)
    except (TypeError, ValueError) as err:
        raise StoreError(
            f"{field}: cannot be stored as JSON ({err}); use numbers, strings, lists, dicts"
        ) from err


def loads(text: str | None) -> Any:
    """The value stored by :func:`dumps` (``None`` for a NULL column)."""
    return None if text is None else json.loads(text)


def real(value: Any, field: str) -> float | None:
    """A number for a REAL column: ``None`` and ``NaN`` become NULL.

    Example:
        >>> real(float("nan"), "value") is None
        True
    """
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError) as err:
        raise StoreError(f"{field}: must be a number or None (got {value!r})") from err
    return None if math.isnan(number) else number


def integer(value: Any, field: str) -> int | None:
    """An int for an INTEGER column (``None`` stays NULL); bools and fractions are refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise StoreError(f"{field}: must be an integer or None (got {value!r})")
    return int(value.__index__())


def text(value: Any, field: str) -> str | None:
    """A string for a TEXT column (``None`` stays NULL)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise StoreError(f"{field}: must be a string or None (got {value!r})")
    return value


def count(value: Any, field: str, minimum: int) -> int:
    """An integer of at least ``minimum`` (budgets, parallelism, retries)."""
    number = integer(value, field)
    if number is None or number < minimum:
        raise StoreError(f"{field}: must be an integer >= {minimum} (got {value!r})")
    return number


def mapping(value: Any, field: str) -> dict[str, Any]:
    """``value`` if it is a dict (spec, params, metrics, event data)."""
    if not isinstance(value, dict):
        raise StoreError(f"{field}: must be a dict (got {type(value).__name__})")
    return value
