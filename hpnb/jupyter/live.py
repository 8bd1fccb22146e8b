"""Searches driven by this kernel, and showing a search's dashboard in a cell.

The magics keep every search they start here, so ``%hpsearch show NAME`` and
``hpnb.show(NAME)`` reach the live handle (with working controls) rather than a
read-only view of the store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpnb.api import Search, StoreLike
    from hpnb.jupyter.dashboard.dashboard import Dashboard

_lock = threading.Lock()
_searches: dict[tuple[str, str], Search] = {}


def _key(store_path: Path, name: str) -> tuple[str, str]:
    return (str(Path(store_path).expanduser().resolve()), name)


def store_path(store: StoreLike) -> Path:
    """The file of ``store`` (a Store, a path, a URL, or None for the default store); a server
    store's is its local name (:attr:`~hpnb.core.store.StoreLocation.path`)."""
    from hpnb.core.store import Store, StoreLocation

    if isinstance(store, Store):
        return store.path
    return StoreLocation.of(store).path


def register(search: Search) -> None:
    """Remember a search started by this kernel (replacing an older one of that name)."""
    with _lock:
        _searches[_key(search.store.path, search.name)] = search


def find(name: str, path: Path) -> Search | None:
    """The handle of ``name`` in the store at ``path`` if this kernel started it (running or not)."""
    with _lock:
        return _searches.get(_key(path, name))


def display_search(search: Search, *, wait: bool = False, announce: str | None = None,
                   resume: Callable[[], Search] | None = None) -> Dashboard:
    """Display the dashboard of ``search`` in the current cell; with ``wait``, block until it ends.
    ``resume`` is what its Resume button does (none without it).

    After waiting, the displayed output is replaced by the final view so that a
    saved notebook (nbconvert, nbval, GitHub) shows the finished search.
    """
    from IPython.display import display

    from hpnb.jupyter.dashboard.dashboard import Dashboard

    dashboard = Dashboard(search, resume=resume)
    handle = display(dashboard, display_id=True)
    dashboard.display_handle = handle
    if announce:
        print(announce)
    if wait:
        wait_for_end(dashboard)
    return dashboard


#: seconds between two reads of the widget messages while a cell waits for its search.
SERVE_INTERVAL = 0.05


def wait_for_end(dashboard: Dashboard) -> None:
    """Block until the search of ``dashboard`` ends, then show its final view in its place.

    The dashboard's controls keep working while the cell waits (see :mod:`hpnb.jupyter.widget_pump`).
    """
    from hpnb.jupyter.widget_pump import serving_widgets

    try:
        with serving_widgets() as serve:
            while dashboard.search.is_running:  # a control may replace the handle (Resume)
                dashboard.search.wait(SERVE_INTERVAL)
                serve()
    except KeyboardInterrupt:
        name = dashboard.search.name
        print(f"stopped waiting; {name!r} goes on: %hpsearch stop {name} stops it")
        return
    dashboard.refresh()
    dashboard.show_final()
