"""Small parts of the dashboard's plot panels: the note above a plot, the Pareto plot's pair
selector, and how a panel hides while it stays laid out."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from hpnb.core.objectives import Objective

#: what a panel says until its figure is made.
DRAWING = "drawing the plot…"


#: a note of work under way appears only once it lasts this long (most plots are drawn sooner).
DRAWING_DELAY = "0.6s"
_APPEAR = ("<style>@keyframes hpnb-appear{to{opacity:1}}</style>"
           f"<div style='opacity:0;animation:hpnb-appear 0s linear {DRAWING_DELAY} forwards'>")


def note_html(text: str) -> str:
    """``text`` as the grey note above a plot (:data:`DRAWING` only once drawing takes a while)."""
    note = f"<div class='hpnb-note' style='padding:6px 0;color:#555'>{html.escape(text)}</div>"
    return f"{_APPEAR}{note}</div>" if text == DRAWING else note


class PairSelector:
    """The x and y dropdowns of the Pareto plot, shown with more than two objectives; choosing for
    one axis the objective of the other swaps them."""

    def __init__(self, objectives: Sequence[Objective]) -> None:
        names = [o.name for o in objectives] or [""]
        self.x = widgets.Dropdown(description="x", options=names, value=names[0])
        self.y = widgets.Dropdown(description="y", options=names, value=names[min(1, len(names) - 1)])
        self.box = widgets.HBox([self.x, self.y], layout={"display": "" if len(objectives) > 2 else "none"})
        self.box.add_class("hpnb-pareto-pair")
        self.x.observe(lambda change: self._swap(change, self.y), names="value")
        self.y.observe(lambda change: self._swap(change, self.x), names="value")

    @staticmethod
    def _swap(change: dict[str, Any], other: widgets.Dropdown) -> None:
        if change["new"] == other.value:
            other.value = change["old"]


def set_visible(panel: widgets.VBox, visible: bool) -> None:
    """Show ``panel``, or hide it while keeping it laid out at its width (no height, invisible)."""
    with panel.layout.hold_sync():
        panel.layout.visibility = "visible" if visible else "hidden"
        panel.layout.height = "" if visible else "0px"
        panel.layout.overflow = "" if visible else "hidden"
