"""``GET /hpnb/api/plotly.js``: the dashboards' plotly.js, for a page to load before any kernel
sends it.

A kernel sends plotly.js to the page with its first dashboard (right after ``%load_ext hpnb``,
see :mod:`hpnb.views.plotly_js`), and the page then evaluates it, about a second
without a GPU. In a notebook run top to bottom that second falls on the first dashboard. The
Lab extension fetches this module once a notebook that uses hpnb is open (when the page is next
idle) and fills the page's registry entry of its plotly version (the ``X-Plotly-Version``
header); a kernel of the same plotly version then finds plotly.js loaded, one of another
version still sends its own.

The body is the kernel's module (default export ``Plotly``) with the plots' template as the
named export ``template``; revalidated by its ETag, so a reload gets a 304 and an upgraded
plotly is seen at once. Authenticated like every hpnb route (403 without a valid token).
"""

from __future__ import annotations

import functools
import json

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web


@functools.cache
def page_module() -> tuple[str, bytes]:
    """(plotly version, the ES module a page imports): read once per server."""
    from hpnb.views.plotly_js import plotly_js_module, plotly_version, template

    exported = b"\nexport const template = " + json.dumps(template()).encode() + b";\n"
    return plotly_version(), plotly_js_module() + exported


class PlotlyModuleHandler(APIHandler):
    """The dashboards' plotly.js as a JavaScript module."""

    auth_resource = "hpnb"

    @web.authenticated
    @authorized
    def get(self) -> None:
        try:
            version, body = page_module()
        except ImportError as err:  # no plotly where the server runs: kernels send their own
            raise web.HTTPError(404, str(err)) from err
        self.set_header("Cache-Control", "private, no-cache")
        self.set_header("X-Plotly-Version", version)
        self.finish(body, set_content_type="text/javascript; charset=utf-8")
