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

import json
import threading
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from hpnb.jupyter.dashboard.plotly_registry import with_plotly_registry

#: the plotly.js bundle is a UMD script: as an ES module, it fills this ``module`` object.
_MODULE_START = b"const module = { exports: {} };\n"
_MODULE_END = b"\nexport default module.exports;\n"
TEMPLATE = "plotly_white"

_lock = threading.Lock()
_shared: PlotlyCode | None = None


def plotly_folder() -> Path:
    """The installed plotly package's folder, found without importing plotly."""
    spec = find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the dashboard's plots need the plotly package: pip install plotly")
    return Path(next(iter(spec.submodule_search_locations)))


def plotly_version() -> str:
    """The installed plotly package's version (which plotly.js the page is sent)."""
    from importlib.metadata import version

    return version("plotly")


def plotly_js_module() -> bytes:
    """plotly.js as shipped in the plotly package, wrapped as an ES module whose default export is
    ``Plotly``."""
    return _MODULE_START + (plotly_folder() / "package_data" / "plotly.min.js").read_bytes() + _MODULE_END


def template() -> dict[str, Any]:
    """plotly's ``plotly_white`` template (white background, light grid), as plotly.js reads it."""
    path = plotly_folder() / "package_data" / "templates" / f"{TEMPLATE}.json"
    found: dict[str, Any] = json.loads(path.read_text())
    return found


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
