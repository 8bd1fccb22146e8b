"""plotly.js as a page imports it, read from the installed plotly package (never imported).

The cell's dashboards send it to the page once per kernel
(:mod:`hpnb.jupyter.dashboard.plotly_code`), and the Lab's server hands the same module to a
page before any kernel does (:mod:`hpnb.jupyter.server.plotly_route`).

Example:
    >>> plotly_js_module().startswith(b"const module")  # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

#: the plotly.js bundle is a UMD script: as an ES module, it fills this ``module`` object.
_MODULE_START = b"const module = { exports: {} };\n"
_MODULE_END = b"\nexport default module.exports;\n"
TEMPLATE = "plotly_white"


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
