"""Importing what a ``%%hpsearch`` cell needs ahead of it, in the background.

``%load_ext hpnb`` starts a background thread that imports, one module at a time, what the cell
itself runs (the handle, the dashboard's widgets), then sends plotly.js to the page
(:func:`~hpnb.jupyter.dashboard.plotly_code.shared_plotly_code`), which the page evaluates (a
second or so) while the user writes the next cell rather than when the first plot is due; then the
re-run path of a cell run again, then Dask's distributed, which the search's own background start
needs. Every step but the last two is one the first cell would take itself, so a cell that comes
at once (Run All) waits at most for the step under way, never for the others: it runs them
itself, and the thread goes on once no hpnb cell runs and the dashboards' first plots are drawn
(:class:`Hold`): two threads would share one interpreter lock. Nothing is imported from two
threads at once (a cell waits for the step under way before it imports). The dashboard draws with
plotly.js in the page and never imports plotly here (its Python figure widget pulls in nbformat
and jsonschema: more than a second of one core).

Example:
    >>> start()  # doctest: +SKIP
    >>> wait()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from collections.abc import Callable, Iterator
from functools import partial

#: what the first cell would import otherwise, in the order it needs them: the handle, the dashboard.
MODULES = ("hpnb.api", "hpnb.jupyter.dashboard.dashboard")
#: what only some cells need (a cell run again), and what the start of a search imports in its own
#: thread: imported once no cell runs.
LATER = ("hpnb.jupyter.rerun", "distributed", "hpnb.runner.dask_executor")

_lock = threading.Lock()
_thread: threading.Thread | None = None
#: held while the thread takes one step; a cell takes it before its own imports.
_step = threading.Lock()
#: set once every step a cell would take is taken (or the thread gave them to a cell).
_cell_ready = threading.Event()
#: how many hpnb cells run now: the thread takes no step while one does.
_cells = 0
_no_cell = threading.Condition()
log = logging.getLogger(__name__)


def _import(names: tuple[str, ...]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # the cell imports it again and shows the error where it belongs
            log.debug("hpnb could not import %s ahead of the cell", name, exc_info=True)


def _import_all() -> None:
    try:
        steps: list[Callable[[], None]] = [*(partial(_import, (name,)) for name in MODULES), _send_plotly_js]
        for step in steps:
            with _step:
                if _cells:  # a cell came: it takes the steps left itself, the thread waits for it
                    break
                step()
    finally:
        _cell_ready.set()
    with _no_cell:  # not while a cell runs: two threads would share one interpreter lock
        _no_cell.wait_for(lambda: _cells == 0)
    _send_plotly_js()  # no-ops when a cell took them
    _import(MODULES)
    _import(LATER)


def _send_plotly_js() -> None:
    try:  # the page evaluates plotly.js (a second or so) before the first dashboard needs it
        from hpnb.jupyter.dashboard.plotly_code import shared_plotly_code

        shared_plotly_code()
    except Exception:
        log.debug("hpnb could not send plotly.js ahead of the cell", exc_info=True)


def start() -> None:
    """Begin the imports in a background thread (once per process)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_import_all, name="hpnb-warmup", daemon=True)
            _thread.start()


class Hold:
    """While held, the imports for later do not begin (they would compete with the holder for
    the interpreter); :meth:`release` once done (again is harmless)."""

    def __init__(self) -> None:
        global _cells
        self._held = True
        with _no_cell:
            _cells += 1

    def release(self) -> None:
        global _cells
        with _no_cell:
            if self._held:
                self._held = False
                _cells -= 1
                _no_cell.notify_all()


@contextlib.contextmanager
def cell() -> Iterator[None]:
    """Around the work of an hpnb cell: the thread takes no step while it runs, and the cell waits
    only for the step under way (one it would take itself) before it runs the rest itself."""
    hold = Hold()
    try:
        with _step:
            pass
        yield
    finally:
        hold.release()


def wait() -> None:
    """Return once the steps a cell would take, begun by :func:`start`, are taken (at once if
    nothing was begun, or a cell took them over); the re-run path and Dask may still be on their way."""
    if _thread is not None:
        _cell_ready.wait()
