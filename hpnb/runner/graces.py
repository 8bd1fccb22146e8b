"""Waits for a condition, with a grace period, that run side by side and block no caller.

Dask runs every future's done-callback on one thread: a callback that waits (for a nanny's memory
report after a worker died, say) holds up every other future's callback behind it, and three lost
trials would wait three graces in a row. :class:`Graces` keeps the waits in one thread of its own,
polling each condition until it holds or its grace has passed, then calls what comes next.

Example:
    >>> import threading
    >>> done = threading.Event()
    >>> graces = Graces()
    >>> graces.add(lambda: True, 1.0, lambda held: done.set())
    >>> done.wait(1.0)
    True
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("hpnb")

#: seconds between two looks at the pending conditions.
POLL = 0.01


@dataclass
class _Wait:
    condition: Callable[[], bool]
    deadline: float
    then: Callable[[bool], None]


class Graces:
    """Pending waits, each ended when its condition holds (``then(True)``) or its grace has passed
    (``then(False)``); the thread runs only while some wait is pending."""

    def __init__(self) -> None:
        self._pending: list[_Wait] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, condition: Callable[[], bool], grace: float, then: Callable[[bool], None]) -> None:
        """Call ``then`` once ``condition()`` holds, or after ``grace`` seconds without it."""
        with self._lock:
            self._pending.append(_Wait(condition, time.monotonic() + grace, then))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="hpnb-graces")
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._thread = None
                    return
                pending = list(self._pending)
            now = time.monotonic()
            for wait in pending:
                held = _holds(wait.condition)
                if held or now >= wait.deadline:
                    with self._lock:
                        self._pending.remove(wait)
                    _call(wait.then, held)
            time.sleep(POLL)


def _holds(condition: Callable[[], bool]) -> bool:
    try:
        return bool(condition())
    except Exception as exc:  # a condition that cannot be read does not hold
        log.debug("hpnb could not check a condition: %s", exc)
        return False


def _call(then: Callable[[bool], None], held: bool) -> None:
    try:
        then(held)
    except Exception:  # one failing follow-up must not end the others' waits
        log.exception("hpnb: a follow-up after a wait failed")
