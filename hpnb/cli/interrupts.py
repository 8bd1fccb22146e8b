"""Ctrl-C and SIGTERM for a headless driver: stop cleanly, then a second one exits at once.

The first SIGINT or SIGTERM stops the search (running trials are asked to stop, the
store ends STOPPED) and waits a bounded time for that; a second one exits at once,
leaving the search resumable. Either way the exit code says so: 130 for SIGINT,
143 for SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: seconds the CLI waits for the trials to acknowledge a stop before it exits anyway.
STOP_WAIT = 30.0


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


def exit_code(interrupt: KeyboardInterrupt) -> int:
    """130 for SIGINT, 143 for SIGTERM (128 + the signal's number)."""
    return 128 + (signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_after_interrupt(search: Any, interrupt: KeyboardInterrupt) -> int:
    """Stop ``search`` after the first interrupt; returns the exit code.

    A second interrupt while the trials wind down exits the process at once (the
    search stays resumable: its store rows are committed and its lock dies with us).
    """
    code = exit_code(interrupt)
    try:  # from the first line on: a second interrupt right after it must find the handler below
        print(f"\nstopping search {search.name!r}: running trials are asked to stop "
              f"(interrupt again to exit at once; `hpnb resume {search.name}` continues it)",
              file=sys.stderr, flush=True)
        search.stop()
        search.wait(STOP_WAIT)
    except KeyboardInterrupt:
        print(f"exiting at once; search {search.name!r} can be resumed", file=sys.stderr, flush=True)
        os._exit(code)
    return code
