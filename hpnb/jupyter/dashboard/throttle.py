"""Work that is too slow for a redraw (parameter importance, a contour) run off the kernel's
main thread, at most once every few seconds.

Example:
    >>> runs = []
    >>> work = Throttled(lambda: runs.append(1), interval=0.0)
    >>> work.request(); work.join(5.0); runs
    [1]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Throttled:
    """Runs ``work`` on a thread of its own when asked, ``interval`` seconds apart at least.

    Requests made while it runs (or waits for its turn) collapse into one more run,
    which then sees the latest data. ``work`` must not raise; what it does raise is
    logged and forgotten, so the next request runs it again.
    """

    def __init__(self, work: Callable[[], None], interval: float, name: str = "hpnb-analysis") -> None:
        self.work = work
        self.interval = interval
        self.name = name
        self._lock = threading.Lock()
        self._pending = False
        self._thread: threading.Thread | None = None
        self._last = -float("inf")

    def request(self) -> None:
        """Ask for a run soon (cheap; any thread)."""
        with self._lock:
            self._pending = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._thread = None
                    return
                self._pending = False
            time.sleep(max(0.0, self._last + self.interval - time.monotonic()))
            self._last = time.monotonic()
            try:
                self.work()
            except Exception:  # the display must never take the kernel down
                log.exception("hpnb dashboard: %s failed", self.name)

    def join(self, timeout: float | None = None) -> None:
        """Wait until no run is pending (for tests and for closing)."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
