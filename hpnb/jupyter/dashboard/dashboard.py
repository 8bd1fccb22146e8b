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

from hpnb.core.errors import HpnbError
from hpnb.core.restartable_thread import RestartableThread
from hpnb.jupyter import warmup
from hpnb.jupyter.dashboard import architecture, ranks, static, trial_artifacts, trial_log
from hpnb.jupyter.dashboard.controls import Controls, selected_state
from hpnb.jupyter.dashboard.copy_cell import best_cell_code, copy_label, trial_cell_code
from hpnb.jupyter.dashboard.data import objective_values
from hpnb.jupyter.dashboard.model import DashboardModel, View
from hpnb.jupyter.dashboard.widgets import DashboardWidgets
from hpnb.jupyter.namespace import stored_objective_name
from hpnb.runner.worker.objective import takes_config

if TYPE_CHECKING:
    from hpnb.api import Search

#: seconds between two redraws at most (about four a second).
MIN_INTERVAL = 0.25
#: a redraw that took t seconds is followed by one BUSY_FACTOR * t seconds later at the soonest.
BUSY_FACTOR = 4.0
#: seconds between two reads of a search this process does not drive (another kernel, a detached one).
POLL_INTERVAL = 1.0
#: seconds a live search's refresh thread waits for a change before checking anyway.
LIVE_CHECK_INTERVAL = 5.0
#: seconds :meth:`Dashboard.close` waits for the refresh thread to end.
CLOSE_TIMEOUT = 10.0

log = logging.getLogger(__name__)


def _after_the_cell(start: Callable[[], None]) -> None:
    """Call ``start`` once the running cell's code is done (at once outside IPython): the refresh
    thread's first redraw, which makes the plots, then does not compete with the cell's reply."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        start()
        return

    def after_cell() -> None:
        shell.events.unregister("post_execute", after_cell)
        start()

    shell.events.register("post_execute", after_cell)


class Dashboard:
    """The live view of ``search``; displaying it shows the widgets (or, without them, a summary).

    Args:
        search: a :class:`~hpnb.api.Search` handle (live or loaded from the store).
        resume: resumes the search with its objective (used by the Resume button), or None.
    """

    def __init__(self, search: Search, resume: Callable[[], Search] | None = None) -> None:
        self.search = search
        self.display_handle: Any = None
        self.model = DashboardModel(search.store.url, search.experiment_id, search.spec.space)
        self._render_lock = threading.RLock()
        self._dirty = threading.Event()
        self._closed = threading.Event()
        self._refresher = RestartableThread(self._run, "hpnb-dashboard")
        self._final_shown = False
        self._last_view_final = False
        self.controls = Controls(search, self._selected_trial, self._after_action,
                                 resume=self._resumer(resume) if resume else None)
        self.widgets = DashboardWidgets(self.model, self.controls, search.spec.strategy.name,
                                        search.spec.objectives)
        self.widgets.table.observe(lambda _: self._redraw_selection(), names="selected")
        self.widgets.table.observe(lambda _: self._redraw_table(), names=["sort", "descending", "page"])
        self._log_shown: tuple[Any, ...] | None = None
        self._first_draw = warmup.Hold()  # Dask's import waits until the first plots are drawn
        self._unsubscribe = search.add_listener(self.mark_dirty)
        self.refresh(plots=False)  # the plots are drawn by the refresh thread, once the cell returned
        _after_the_cell(self.mark_dirty)

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
        return self._last_view.header.summary.state.value

    # -- refreshing -----------------------------------------------------------------------

    def refresh(self, plots: bool = True) -> View:
        """Read the store and redraw now (any thread). With ``plots`` False (in the cell that shows
        the dashboard) the plots and the new results are left for the refresh thread."""
        with self._render_lock:
            # the handle first, the store second: a view read once the driver has ended is final
            # (the driver ends after its last write), so the final summary never shows it running
            live = bool(self.search.is_live)
            state = self.search.state
            self.model.update(results=plots)
            view = self.model.view(state=state)
            self._last_view = view
            self._last_view_final = not live
            self.widgets.render(view, live, plots)
            self.widgets.set_best_code(*self._cell_code(view))
            self._show_log(view)
        return view

    def _after_action(self) -> None:
        """A control acted: redraw soon; a search that runs again gets its final view again."""
        if self.search.is_live:
            self._final_shown = False
        self.mark_dirty()

    def mark_dirty(self) -> None:
        """Ask for a redraw soon (cheap; called from the driver thread); nothing once closed."""
        if self._closed.is_set():
            return
        self._dirty.set()
        self._refresher.ensure_running()

    def _run(self) -> None:
        try:
            with self._render_lock:  # first the plots of what was read already, then the store again
                self.widgets.tabs.render(self._last_view)
                self.widgets.tabs.predraw()
        finally:
            self._first_draw.release()
        while True:
            live = bool(self.search.is_live)
            self._dirty.wait(LIVE_CHECK_INTERVAL if live else POLL_INTERVAL)
            self._dirty.clear()
            if self._closed.is_set():
                return
            started = time.monotonic()
            try:
                view = self.refresh()
            except Exception:  # the display must never take the search down
                log.exception("hpnb dashboard refresh failed")
                view = self._last_view
            if self.model.behind:  # a large search is read in bounded steps
                self._dirty.set()
            elif self._last_view_final and not view.header.summary.state.is_active:
                self.show_final()
                if not self._dirty.is_set():
                    return
            took = time.monotonic() - started
            # a large search's redraw takes long: redraw less often so the kernel stays free
            time.sleep(max(MIN_INTERVAL, BUSY_FACTOR * took) - took)

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
        """A row was clicked: highlight it in the plots, show its log (main thread)."""
        with self._render_lock:
            view = self._last_view
            self.widgets.tabs.redraw()
            self.controls.update(view.header.summary.state, bool(self.search.is_live),
                                 selected_state(view.trials, self._selected_trial()))
            if view.header.summary.is_multi_objective:  # the button copies the selected trial
                self.widgets.set_best_code(*self._cell_code(view))
            self._show_log(view)

    def _redraw_table(self) -> None:
        with self._render_lock:
            self.widgets.render_table()

    def _show_log(self, view: View) -> None:
        """The selected trial's log, read again only when that trial changed."""
        trial_id = self._selected_trial()
        record = next((t for t in view.trials if t.trial_id == trial_id), None)
        gang = view.ranks.get(trial_id) if trial_id is not None else None
        key = None if record is None else (trial_id, record.state, record.end, record.error, gang,
                                           record.last_step)  # a step: a DARTS trial's new architecture
        if key == self._log_shown:
            return
        self._log_shown = key
        if trial_id is None:
            self.widgets.log.value = trial_log.HINT
            return
        try:
            log = trial_log.log_html(self.search.logs(trial_id), ranks.ranks_html(gang))
            self.widgets.log.value = log + self._artifacts(trial_id)
        except HpnbError as err:
            self.widgets.log.value = trial_log.error_html(trial_id, err)

    def _artifacts(self, trial_id: int) -> str:
        """The trial's artifacts under its log (nothing when its checkpoint store cannot be read)."""
        try:
            listed = self.search.artifacts(trial_id)
            store = self.search.checkpoint_store()
            return (trial_artifacts.artifacts_html(listed, store.fs.cat_file)
                    + architecture.panel_html(listed, store.fs.cat_file))
        except (OSError, ValueError, ImportError):
            return ""

    def _cell_code(self, view: View) -> tuple[str, str]:
        """The code "Copy ... as a cell" inserts and the button's label ("": the usual one)."""
        summary = view.header.summary
        if summary.is_multi_objective:
            return self._trial_code(view)
        if summary.best_trial is None:
            return "", ""
        name, config = self._objective_call(summary.best_params)
        return best_cell_code(name, summary.best_params, trial_id=summary.best_trial, metric=summary.metric,
                              value=summary.best_value, search=summary.name, takes_config=config), ""

    def _trial_code(self, view: View) -> tuple[str, str]:
        """Several objectives, no best: the selected trial, else the first of the front."""
        summary = view.header.summary
        front = {entry["trial_id"] for entry in summary.front}
        chosen = self._selected_trial()
        if chosen is None and summary.front:
            chosen = summary.front[0]["trial_id"]
        trial = next((t for t in view.trials if t.trial_id == chosen), None)
        if trial is None:
            return "", copy_label(None)
        name, config = self._objective_call(trial.params)
        code = trial_cell_code(name, dict(trial.params), trial_id=trial.trial_id, search=summary.name,
                               values=objective_values(trial, summary.objectives),
                               on_front=trial.trial_id in front, takes_config=config)
        return code, copy_label(trial.trial_id)

    def _objective_call(self, params: dict[str, Any]) -> tuple[str | None, bool]:
        """The objective's name in the notebook, and whether it takes one ``config`` dict."""
        objective = self.search.objective
        name = stored_objective_name(self.search.record) or getattr(objective, "__name__", None)
        return name, objective is not None and takes_config(objective, list(params))

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
        """Stop following the search (the widgets stay as they are): the refresh thread ends
        before the store is closed."""
        self._unsubscribe()
        self._closed.set()
        self._dirty.set()
        self._refresher.join(CLOSE_TIMEOUT)
        self.widgets.tabs.close()
        self.model.close()
