"""The dashboard of one search: widgets kept up to date from the store, plus a static fallback.

Refreshing: the search's listener (called by the driver thread after each
batch it stores) only sets a flag. A refresh thread waits for the flag, reads
what changed from its own read-only connection to the store and sets widget
values, at most :data:`MIN_INTERVAL` apart, so a fast search costs a few
redraws a second and the driver never waits for the display. A search driven
by another process has no listener here: the thread polls every
:data:`POLL_INTERVAL` seconds while it is running. The thread ends once the
search is over (and starts again if it is resumed or extended).

Example:
    >>> from hpnb.jupyter.dashboard.dashboard import Dashboard
    >>> Dashboard(hpnb.load("mlp-lr"))  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hpnb.jupyter.dashboard import static
from hpnb.jupyter.dashboard.controls import Controls
from hpnb.jupyter.dashboard.model import DashboardModel, View
from hpnb.jupyter.dashboard.widgets import DashboardWidgets

if TYPE_CHECKING:
    from hpnb.api import Search

#: seconds between two redraws at most (about four a second).
MIN_INTERVAL = 0.25
#: seconds between two reads of a search this process does not drive.
POLL_INTERVAL = 2.0
#: seconds a live search's refresh thread waits for a change before checking anyway.
LIVE_CHECK_INTERVAL = 5.0
ACTIVE_STATES = ("CREATED", "RUNNING")

log = logging.getLogger(__name__)


class Dashboard:
    """The live view of ``search``; displaying it shows the widgets (or, without them, a summary).

    Args:
        search: a :class:`~hpnb.api.Search` handle (live or loaded from the store).
        resume: resumes the search with its objective (used by the Resume button), or None.
    """

    def __init__(self, search: Search, resume: Callable[[], Search] | None = None) -> None:
        self.search = search
        self.display_handle: Any = None
        self.model = DashboardModel(search.store.path, search.experiment_id, search.spec.space)
        self._render_lock = threading.RLock()
        self._thread_lock = threading.Lock()
        self._dirty = threading.Event()
        self._thread: threading.Thread | None = None
        self._final_shown = False
        self.controls = Controls(search, self._selected_trial, self.mark_dirty,
                                 resume=self._resumer(resume) if resume else None)
        self.widgets = DashboardWidgets(self.model, self.controls, search.spec.strategy.name)
        self.widgets.leaderboard.observe(lambda _: self._redraw_selection(), names="value")
        self.widgets.metric.observe(lambda _: self._redraw_selection(), names="value")
        self._unsubscribe = search.add_listener(self.mark_dirty)
        self.refresh()
        self.mark_dirty()

    # -- display --------------------------------------------------------------------------

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = dict(self.widgets.root._repr_mimebundle_() or {})
        view = self._last_view
        bundle["text/plain"] = static.summary_text(view.header, view.leaderboard)
        bundle["text/html"] = static.summary_html(view.header, view.leaderboard, self.model.param_names,
                                                  view.failures)
        return bundle

    @property
    def state(self) -> str:
        return str(self._last_view.header.state)

    # -- refreshing -----------------------------------------------------------------------

    def refresh(self) -> View:
        """Read the store and redraw now (any thread)."""
        with self._render_lock:
            self.model.update()
            live = bool(self.search.is_live)
            view = self.model.view(state=self.search.state)
            self._last_view = view
            self.widgets.render(view, live)
        return view

    def mark_dirty(self) -> None:
        """Ask for a redraw soon (cheap; called from the driver thread)."""
        self._dirty.set()
        with self._thread_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="hpnb-dashboard", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            live = bool(self.search.is_live)
            self._dirty.wait(LIVE_CHECK_INTERVAL if live else POLL_INTERVAL)
            self._dirty.clear()
            started = time.monotonic()
            try:
                view = self.refresh()
            except Exception:  # the display must never take the search down
                log.exception("hpnb dashboard refresh failed")
                view = self._last_view
            if view.header.state not in ACTIVE_STATES and not self.search.is_live:
                self.show_final()
                if not self._dirty.is_set():
                    return
            time.sleep(max(0.0, MIN_INTERVAL - (time.monotonic() - started)))

    def show_final(self) -> None:
        """Once over, replace the displayed output so a saved notebook keeps the final summary."""
        if self.display_handle is None or self._final_shown:
            return
        self._final_shown = True
        try:
            self.display_handle.update(self)
        except Exception:
            log.debug("could not update the dashboard's display", exc_info=True)

    def _redraw_selection(self) -> None:
        with self._render_lock:
            view = self._last_view
            self.widgets.render_curves(view)
            running = {t.trial_id for t in view.trials if t.state == "RUNNING"}
            self.controls.update(view.header.state, bool(self.search.is_live),
                                 self._selected_trial() in running)

    def _selected_trial(self) -> int | None:
        return self.widgets.selected_trial()

    def _resumer(self, resume: Callable[[], Any]) -> Callable[[], Any]:
        def resume_here() -> Search:
            search = resume()
            self._unsubscribe()
            self.search = search
            self._final_shown = False
            self._unsubscribe = search.add_listener(self.mark_dirty)
            return search

        return resume_here

    def close(self) -> None:
        """Stop following the search (the widgets stay as they are)."""
        self._unsubscribe()
        self.model.close()
