"""Every ``/hpnb/api`` route, gathered from the modules that define them and added to the server.

The route modules build on :mod:`hpnb.jupyter.server.handlers` and none of them imports
another's routes: this module alone knows them all.

Example:
    >>> from hpnb.jupyter.server.routes import register_handlers
    >>> register_handlers(serverapp.web_app, store_path)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.utils import url_path_join

from hpnb.jupyter.server.artifacts_route import artifact_routes
from hpnb.jupyter.server.command_route import command_routes
from hpnb.jupyter.server.handlers import HpnbHandler, search_routes
from hpnb.jupyter.server.pareto_route import ParetoHandler
from hpnb.jupyter.server.plotly_route import PlotlyModuleHandler
from hpnb.jupyter.server.view_routes import insight_routes


def hpnb_routes(api: str) -> list[tuple[str, type[HpnbHandler]]]:
    """(pattern, handler) of every route of a search and of the comparison; ``api`` is the URL of
    ``/hpnb/api``."""
    base = url_path_join(api, "experiments")
    pareto = (url_path_join(base, r"(?P<name>[^/]+)", "pareto"), ParetoHandler)
    return [*search_routes(base), *command_routes(base), *insight_routes(api), pareto, *artifact_routes(base)]


def register_handlers(web_app: Any, store_path: Path | str) -> None:
    """Add the routes to the server's tornado application; they read the store at ``store_path``."""
    api = url_path_join(web_app.settings["base_url"], "hpnb", "api")
    options = {"store_path": store_path}
    web_app.add_handlers(".*$", [*((pattern, handler, options) for pattern, handler in hpnb_routes(api)),
                                 (url_path_join(api, "plotly.js"), PlotlyModuleHandler)])
