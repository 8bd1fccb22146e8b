"""The tab bar over the dashboard's plots: a small anywidget (``tab_bar.js``).

The kernel sends the tabs (``options``); the front end sends the user's choice (``value``), made
when a tab is pressed. A refresh sets ``options`` only, so the tab a user chose is never taken back,
and the front end keeps each tab's button while the list grows, so a press always lands.

Example:
    >>> bar = TabBar(options=["History", "Curves"], value="History")  # doctest: +SKIP
    >>> bar.options = ["History", "Curves", "Slices"]  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

_HERE = Path(__file__).parent


class TabBar(anywidget.AnyWidget):
    """Tabs named by ``options``; ``value`` is the chosen one's name."""

    _esm = _HERE / "tab_bar.js"
    _css = _HERE / "tab_bar.css"
    options: traitlets.List[str] = traitlets.List(traitlets.Unicode()).tag(sync=True)
    value = traitlets.Unicode("").tag(sync=True)
