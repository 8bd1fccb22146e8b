"""What an objective captures from the notebook, checked before a search starts: it must pickle,
and not be larger than the search lets travel to its workers (``resources.max_captured``).

Both checks pickle the objective with its large buffers out of band, so a 2 GB array
captured is measured without a copy of it.

Example:
    >>> import threading
    >>> lock = threading.Lock()
    >>> def train(x):
    ...     with lock:
    ...         return x
    >>> try:
    ...     check_objective(train, limit=2**30)
    ... except HpnbError as err:
    ...     print(str(err).split(": ", 1)[1][:40])
    it captures 'lock' (a lock), which canno
"""

from __future__ import annotations

import functools
import inspect
import pickle
from collections.abc import Callable, Iterator
from typing import Any

from hpnb.core.errors import HpnbError
from hpnb.runner.shared_objective import serialized_size

_PICKLE_ERRORS = (pickle.PicklingError, TypeError, AttributeError)


def check_objective(objective: Callable[..., Any], limit: int) -> int:
    """The size of ``objective`` pickled, once it is known to pickle and to fit ``limit`` bytes.

    Raises:
        HpnbError: it is not a function, it captures something that cannot be pickled (named),
            or it is larger than ``limit`` (saying how to raise it, or to load data in the trial).
    """
    if not callable(objective):
        raise HpnbError(f"the objective must be a function, got {type(objective).__name__}")
    name = getattr(objective, "__name__", repr(objective))
    try:
        size = serialized_size(objective)
    except _PICKLE_ERRORS as exc:
        raise HpnbError(f"the objective {name!r} cannot be pickled to run on Dask workers: "
                        f"{_culprit(objective, exc)}. Create such objects (open files, locks, database "
                        "connections) inside the function.") from exc
    if size > limit:
        raise HpnbError(
            f"the objective {name!r} with what it captures is {_size(size)} pickled, more than the "
            f"{_size(limit)} a search sends to its workers (resources.max_captured). Raise the limit "
            f"(resources: {{max_captured: {_size_quantity(size)}}}) if the workers have the memory, or "
            "load the data inside the function (from a file the workers can read) instead of capturing it")
    return size


def _culprit(objective: Callable[..., Any], exc: Exception) -> str:
    """The name of the first captured value that does not pickle, with why; else just why."""
    for name, value in captured_values(objective):
        try:
            serialized_size(value)
        except _PICKLE_ERRORS as err:
            return (f"it captures {name!r} ({_kind(value)}), which cannot be pickled "
                    f"({type(err).__name__ if not str(err) else err})")
        except Exception:  # another value may be the one
            continue
    return str(exc)


def captured_values(objective: Callable[..., Any]) -> Iterator[tuple[str, Any]]:
    """The named values ``objective`` takes along: closure variables, globals it reads, defaults,
    and a ``functools.partial``'s arguments.

    Example:
        >>> scale = 2.0
        >>> [name for name, _ in captured_values(lambda x: x * scale)]
        ['scale']
    """
    if isinstance(objective, functools.partial):
        yield from ((f"argument {i}", value) for i, value in enumerate(objective.args))
        yield from objective.keywords.items()
        yield from captured_values(objective.func)
        return
    function = objective if inspect.isfunction(objective) else getattr(objective, "__call__", None)  # noqa: B004
    if function is None or not (inspect.isfunction(function) or inspect.ismethod(function)):
        return
    if inspect.ismethod(function):
        yield "self", function.__self__
        function = function.__func__
    try:
        found = inspect.getclosurevars(function)
    except (TypeError, ValueError):
        return
    yield from found.nonlocals.items()
    yield from ((k, v) for k, v in found.globals.items() if not inspect.ismodule(v))
    defaults = inspect.signature(function).parameters.values()
    yield from ((p.name, p.default) for p in defaults if p.default is not p.empty)


def _kind(value: Any) -> str:
    kind = type(value).__name__
    return "a lock" if kind in ("lock", "RLock") else f"a {kind}"


def _size(size: int) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.0f} MiB"


def _size_quantity(size: int) -> str:
    return f"{-(-size // 2**30) + 1}Gi"
