"""A daemon thread started on demand, and started again once it has ended.

Example:
    >>> import threading
    >>> done = threading.Event()
    >>> worker = RestartableThread(done.set, "example")
    >>> worker.ensure_running(); done.wait(5)
    True
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class RestartableThread:
    """Runs ``target`` in one daemon thread named ``name`` at a time: :meth:`ensure_running` starts
    it unless it runs (safe from any thread)."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self._target = target
        self._name = name
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def ensure_running(self) -> None:
        with self._lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._target, name=self._name, daemon=True)
                self.thread.start()

    def join(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for the thread to end (nothing from the thread itself)."""
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
