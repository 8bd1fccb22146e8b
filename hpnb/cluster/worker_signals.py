"""Worker processes of local clusters ignore Ctrl-C.

A terminal's Ctrl-C and the notebook's Interrupt button (jupyter_client signals
the kernel's whole process group) also reach the worker processes a local
cluster spawned. Left alone, each dies mid-trial. The process that drives the
search decides what an interrupt means (stop waiting, or stop the search
cleanly), so its workers ignore SIGINT; they still end with their cluster.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin


class IgnoreInterrupts(WorkerPlugin):
    """Installed on every worker of a local cluster, restarted ones included.

    Example:
        >>> client.register_plugin(IgnoreInterrupts())  # doctest: +SKIP
    """

    name = "hpnb-ignore-interrupts"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():  # the worker's event loop thread
            signal.signal(signal.SIGINT, signal.SIG_IGN)
