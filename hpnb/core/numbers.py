"""Metric values as plain Python numbers, whatever the training code produced.

Training code hands over numpy scalars of any width, 0-d arrays, ``decimal``
values, tensors with ``.item()`` and objects with ``__float__``; the driver,
the store and Dask's messages want plain ``int`` and ``float``.

Example:
    >>> import numpy as np
    >>> metric_number("loss", np.float32(0.5)), metric_number("epoch", np.int64(3))
    (0.5, 3)
    >>> metric_number("name", "adam")
    Traceback (most recent call last):
    ...
    hpnb.core.numbers.NotANumber: metric 'name' is a str ('adam'), not a number; report numbers only
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

#: integers beyond this are stored as floats (msgpack and SQLite hold 64-bit integers).
_INT_LIMIT = 2**63 - 1


_NEVER_NUMBERS = (bool, str, bytes, complex, Mapping, list, tuple, set)


class NotANumber(TypeError):
    """A metric value that no number can stand for."""


def metric_number(name: str, value: Any) -> int | float | None:
    """``value`` as a plain ``int`` or ``float`` (None stays None).

    Raises:
        NotANumber: for text, bools, containers, arrays with more than one value, complex
            numbers and anything else that is not a real number; the message names the metric
            and the value's type.
    """
    kind = type(value)
    if kind is float or value is None:
        return value
    if kind is int:
        return value if -_INT_LIMIT <= value <= _INT_LIMIT else float(value)
    if isinstance(value, _NEVER_NUMBERS) or kind.__name__ in ("bool_", "bool"):  # numpy's bools too
        raise _refuse(name, value)
    if getattr(value, "ndim", 0) or getattr(value, "shape", ()) not in ((), None):
        raise _refuse(name, value, f" of shape {tuple(value.shape)}")
    return _convert(name, value)


def _convert(name: str, value: Any) -> int | float:
    item = getattr(value, "item", None)
    if callable(item):  # numpy scalars and 0-d arrays, one-value tensors
        try:
            plain = item()
        except (TypeError, ValueError) as exc:
            raise _refuse(name, value) from exc
        if type(plain) in (int, float):
            return metric_number(name, plain)  # type: ignore[return-value]
        if isinstance(plain, numbers.Real) or isinstance(value, numbers.Real):
            return _as_float(name, plain)  # e.g. numpy's longdouble, whose item() is itself
        raise _refuse(name, value)
    if isinstance(value, numbers.Integral):
        return metric_number(name, int(value))  # type: ignore[return-value]
    return _as_float(name, value)


def _as_float(name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _refuse(name, value) from exc


def _refuse(name: str, value: Any, detail: str = "") -> NotANumber:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return NotANumber(f"metric {name!r} is a {type(value).__name__}{detail} ({shown}), not a number; "
                      "report numbers only")


def metric_numbers(metrics: Mapping[Any, Any]) -> dict[str, int | float | None]:
    """Every value of ``metrics`` through :func:`metric_number`, keys as text.

    Example:
        >>> import numpy as np
        >>> metric_numbers({"acc": np.array(0.75)})
        {'acc': 0.75}
    """
    return {str(key): metric_number(str(key), value) for key, value in metrics.items()}
