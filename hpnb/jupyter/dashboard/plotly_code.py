"""plotly.js for the dashboard's plots, sent to the page once per kernel, never imported here.

The dashboard draws with plotly.js directly (:mod:`~hpnb.jupyter.dashboard.plot`), not with
plotly's Python ``FigureWidget``: that one carries plotly.js (about 5 MB) in the state of
every figure, which the page then evaluates once per figure, and importing it costs the kernel
more than a second (it pulls in nbformat and jsonschema). Here plotly.js, read from the
installed plotly package as a file, travels once per kernel as the binary ``code`` of one
:class:`PlotlyCode` widget that every dashboard holds (invisible); the page imports it once,
and each plot (``plot.js``) waits for it. The ``plotly_white`` template comes with it.

Example:
    >>> code = shared_plotly_code()  # doctest: +SKIP
    >>> code.version  # doctest: +SKIP
    '7.1.0'
"""

from __future__ import annotations

import threading

import anywidget
import traitlets

from hpnb.jupyter.dashboard.plotly_registry import with_plotly_registry
from hpnb.views.plotly_js import plotly_js_module, plotly_version, template

_lock = threading.Lock()
_shared: PlotlyCode | None = None


class PlotlyCode(anywidget.AnyWidget):
    """Carries plotly.js (``code``) and the plots' template to the page; shows nothing."""

    _esm = with_plotly_registry("plotly_code.js")
    version = traitlets.Unicode("").tag(sync=True)
    code = traitlets.Bytes(b"").tag(sync=True)
    template = traitlets.Dict({}).tag(sync=True)


def shared_plotly_code() -> PlotlyCode:
    """The kernel's one :class:`PlotlyCode` widget (made on first use; any thread)."""
    global _shared
    with _lock:
        if _shared is None:
            _shared = PlotlyCode(version=plotly_version(), code=plotly_js_module(), template=template())
        return _shared
