"""Waiting in tests: poll a condition until it holds, with a deadline generous enough for a busy
machine, instead of sleeping a guessed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: long enough for a loaded 2-core machine; a condition that holds returns at once anyway.
DEFAULT_TIMEOUT = 60.0


def wait_until(predicate: Callable[[], T], timeout: float = DEFAULT_TIMEOUT, message: str = "",
               interval: float = 0.05) -> T:
    """Call ``predicate`` until it returns something true and return that; fail after ``timeout`` s.

    The failure names ``message`` (what was awaited) and the last value seen.

    >>> wait_until(lambda: 42, message="the answer")
    42
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            what = message or getattr(predicate, "__name__", "the condition")
            raise AssertionError(f"{what}: not true within {timeout:g} s (last value: {value!r})")
        time.sleep(interval)  # the polling interval, not a guess at how long anything takes
