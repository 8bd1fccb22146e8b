"""Importing what a ``%%hpsearch`` cell needs ahead of it, in the background.

``%load_ext hpnb`` starts a background thread that first sends plotly.js to the page
(:func:`~hpnb.jupyter.dashboard.plotly_code.shared_plotly_code`), which the page evaluates (a
second or so) while the user writes the next cell rather than when the first plot is due;
then imports what the cell itself runs (the handle, the magic's re-run path, the dashboard's
widgets); then Dask's distributed, which the search's own background start needs. A cell that
comes sooner waits only for the first group (:func:`cell`), and the second begins once no hpnb
cell runs and the dashboards' first plots are drawn (:class:`Hold`): two threads would share one
interpreter lock. The dashboard draws with plotly.js in the page and never imports plotly here
(its Python figure widget pulls in nbformat and jsonschema: more than a second of one core).
Nothing is imported from two threads at once (a second importer waits for the first).

Example:
    >>> start()  # doctest: +SKIP
    >>> wait()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from collections.abc import Iterator

#: what the first cell would import otherwise: the handle, the re-run path, the dashboard.
MODULES = ("hpnb.api", "hpnb.jupyter.rerun", "hpnb.jupyter.dashboard.dashboard")
#: what the start of a search imports in its own thread (the cell does not wait for these).
LATER = ("distributed", "hpnb.runner.dask_executor")

_lock = threading.Lock()
_thread: threading.Thread | None = None
_cell_ready = threading.Event()
#: how many hpnb cells run now: the imports for later wait until none does.
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
        _send_plotly_js()
        _import(MODULES)
    finally:
        _cell_ready.set()
    with _no_cell:  # not while a cell runs: two threads would share one interpreter lock
        _no_cell.wait_for(lambda: _cells == 0)
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
    """Around the work of an hpnb cell: waits for what the cell runs (:func:`wait`), and the
    imports for later do not begin while it runs."""
    hold = Hold()
    try:
        wait()
        yield
    finally:
        hold.release()


def wait() -> None:
    """Return once the modules a cell runs, begun by :func:`start`, are imported (at once if
    nothing was begun); plotly and Dask may still be on their way."""
    if _thread is not None:
        _cell_ready.wait()
