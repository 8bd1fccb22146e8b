"""Ending a process that drove a search headless (``hpnb run``, a detached driver): its local
clusters closed first, then an exit that skips the interpreter's teardown.

Example:
    >>> end_headless_process(0)  # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn


def end_headless_process(code: int) -> NoReturn:
    """End the process with ``code`` once its local clusters are closed (their workers end with
    them) and everything is printed."""
    close_local_clusters(code)
    exit_now(code)


def close_local_clusters(code: int) -> None:
    """Close the local clusters now rather than at exit, where an interrupt prints tracebacks;
    an interrupt meanwhile exits at once with ``code``."""
    from hpnb.cluster.connect import shutdown_local

    try:
        shutdown_local()
    except KeyboardInterrupt:
        os._exit(code)


def exit_now(code: int) -> NoReturn:
    """Exit with ``code``: distributed's objects torn down at interpreter exit print tracebacks
    ("IOLoop is closed") that say nothing about the search."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
