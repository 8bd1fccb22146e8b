"""Widget messages served while a cell blocks (``%%hpsearch --wait``, ``search.wait()`` in a cell).

A front end sends a button click or a row selection as a ``comm_msg`` on the shell
channel, which the kernel reads only between cells: a cell that waits for its search
would leave the dashboard's controls dead until the search ends. :func:`serving_widgets`
reads the main shell's messages itself while the cell waits: comm messages are handled
at once, in their order (the click's handler runs on this thread, as it would after the
cell), every other request (the next cells of "Run all", completions, the front end's
kernel_info and history requests) is handed back to the kernel, in its order, to run
after the cell, as it would have been.

It needs ipykernel 7's main-shell socket; elsewhere (ipykernel 6, plain IPython) the cell
simply blocks as before.

Example (in a notebook)::

    with serving_widgets() as serve:
        while search.is_live:
            search.wait(0.05)
            serve()
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger(__name__)

#: messages handled at once while a cell waits; every other shell request waits for the cell.
COMM_TYPES = ("comm_msg", "comm_open", "comm_close")
#: messages read in one call at most (the rest are read by the next).
BATCH = 100


class WidgetPump:
    """Reads the main shell's socket of ``kernel`` while the kernel's loop is blocked."""

    def __init__(self, kernel: Any, socket: Any) -> None:
        self.kernel = kernel
        self.socket = socket
        self.deferred: list[Any] = []

    def serve(self) -> int:
        """Handle the comm messages that arrived; keep the others for :meth:`finish`. Returns
        how many comm messages were handled."""
        import zmq

        handled = 0
        for _ in range(BATCH):
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            # comm messages go ahead of the requests kept for later (as ipykernel does for a cell that
            # awaits): the front end sends some (kernel_info, history) while a cell runs
            if self._handle(frames):
                handled += 1
            else:
                self.deferred.append(frames)
        return handled

    def _handle(self, frames: list[Any]) -> bool:
        """Run a comm message's handler now (True), or leave any other message (False)."""
        kernel = self.kernel
        session = kernel.session
        idents, rest = session.feed_identities(frames, copy=False)
        header = session.deserialize(rest, content=False, copy=False)["header"]
        msg_type = header.get("msg_type")
        if msg_type not in COMM_TYPES:
            return False
        msg = session.deserialize(rest, content=True, copy=False)
        parent = kernel.get_parent("shell")
        parent_ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
        try:
            kernel.set_parent(idents, msg, channel="shell")
            kernel._publish_status("busy", "shell")
            getattr(kernel.comm_manager, msg_type)(kernel.shell_stream, idents, msg)
        except Exception:  # a broken handler must not end the wait (the kernel logs it likewise)
            log.exception("widget message %s failed while the cell waited", msg_type)
        finally:
            # a front end's widget manager sends a model's next change only once it saw this one's
            # "idle" (ipywidgets' throttling): without it, every click after the first is held back
            kernel._publish_status("idle", "shell")
            kernel.set_parent(parent_ident, parent, channel="shell")
            kernel._publish_status("busy", "shell")  # the cell still runs
        return True

    def finish(self) -> None:
        """Read what is left and hand every kept request back to the kernel, in order."""
        self.serve()
        for frames in self.deferred:
            self.kernel.io_loop.add_callback(self.kernel.shell_main, None, frames)
        self.deferred = []


def current_pump() -> WidgetPump | None:
    """A pump for the running ipykernel 7 kernel, or None where there is none."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not hasattr(kernel, "_get_shell_context_var"):
        return None  # not ipykernel 7
    channel_thread = getattr(kernel, "shell_channel_thread", None)
    if channel_thread is not None:
        socket = channel_thread.manager.get_shell_channel_to_subshell_pair(None).to_socket
    else:
        stream = getattr(kernel, "shell_stream", None)
        socket = getattr(stream, "socket", None)
    return None if socket is None else WidgetPump(kernel, socket)


@contextlib.contextmanager
def serving_widgets() -> Iterator[Callable[[], int]]:
    """Yields a function that serves the widget messages that arrived (a no-op outside a kernel
    that allows it); on leaving, the other requests are handed back to the kernel."""
    pump = current_pump()
    if pump is None:
        yield lambda: 0
        return
    try:
        yield pump.serve
    finally:
        pump.finish()
