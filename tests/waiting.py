"""Waiting in tests: poll a condition until it holds, with a deadline generous enough for a busy
machine, instead of sleeping a guessed time."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: how much slower than a quiet 2-core machine this one may be: every deadline the tests give
#: through :func:`patience` is multiplied by it (``HPNB_TEST_PATIENCE=3`` on a shared machine).
PATIENCE = float(os.environ.get("HPNB_TEST_PATIENCE", "1"))


def patience(seconds: float) -> float:
    """A test's deadline of ``seconds`` on a quiet machine, raised by ``HPNB_TEST_PATIENCE``.

    >>> patience(60) >= 60
    True
    """
    return seconds * max(1.0, PATIENCE)


#: long enough for a quiet 2-core machine (raised by :data:`PATIENCE` as every deadline here is);
#: a condition that holds returns at once anyway.
DEFAULT_TIMEOUT = 60.0


def wait_until(predicate: Callable[[], T], timeout: float = DEFAULT_TIMEOUT, message: str = "",
               interval: float = 0.05) -> T:
    """Call ``predicate`` until it returns something true and return that; fail after ``timeout`` s.

    The failure names ``message`` (what was awaited) and the last value seen.

    >>> wait_until(lambda: 42, message="the answer")
    42
    """
    timeout = patience(timeout)
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            what = message or getattr(predicate, "__name__", "the condition")
            raise AssertionError(f"{what}: not true within {timeout:g} s (last value: {value!r})")
        time.sleep(interval)  # the polling interval, not a guess at how long anything takes
