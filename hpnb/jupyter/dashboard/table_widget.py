"""The leaderboard table widget: a small anywidget that draws one :class:`~.table.TablePage`.

The front end (``table.js``) draws the rows it is sent and reports clicks as trait
changes: ``sort``/``descending`` (a header), ``page`` (the arrows), ``selected``
(a row; -1 for none). The kernel answers a sort or a page with the new page's rows, and
never sends back a sort or a page the user chose while it was computing another one.

Example:
    >>> from hpnb.jupyter.dashboard.table import table_page
    >>> table = TrialTable()  # doctest: +SKIP
    >>> asked = table.order  # doctest: +SKIP
    >>> table.show(table_page([], "min", "RUNNING", [], "loss", now=0.0), asked)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

from hpnb.jupyter.dashboard.table import TablePage

_HERE = Path(__file__).parent


class TrialTable(anywidget.AnyWidget):
    """One page of the leaderboard, sortable by any column; ``selected`` is a trial id or -1."""

    _esm = _HERE / "table.js"
    _css = _HERE / "table.css"
    columns: traitlets.List[list[str]] = traitlets.List([]).tag(sync=True)
    rows: traitlets.List[list[str]] = traitlets.List([]).tag(sync=True)
    trial_ids: traitlets.List[int] = traitlets.List([]).tag(sync=True)
    states: traitlets.List[str] = traitlets.List([]).tag(sync=True)
    sort = traitlets.Unicode("rank").tag(sync=True)
    descending = traitlets.Bool(False).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    pages = traitlets.Int(1).tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)

    @property
    def order(self) -> tuple[str, bool, int]:
        """The sort, its direction and the page shown, as the user last chose them."""
        return self.sort, self.descending, self.page

    def show(self, page: TablePage, asked: tuple[str, bool, int]) -> None:
        """Send ``page``, computed for the :attr:`order` ``asked`` (only what changed reaches the
        front end). The page's own order (an unknown column falls back to the rank, a page past
        the last to the last) is sent only while the user's is still the one asked: a click
        that came meanwhile is kept, and its own page follows."""
        with self.hold_sync():
            self.columns = [list(column) for column in page.columns]
            self.rows = page.rows
            self.trial_ids = page.trial_ids
            self.states = page.states
            self.pages, self.total = page.pages, page.total
            corrected = (page.sort, page.descending, page.page)
            if corrected != asked and self.order == asked:
                self.sort, self.descending, self.page = corrected

    @property
    def selected_trial(self) -> int | None:
        return None if self.selected < 0 else int(self.selected)
