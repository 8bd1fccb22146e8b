"""The jupyter_server extension: REST routes under ``/hpnb/api`` for the JupyterLab extension.

Jupyter finds it through ``jupyter-config/jupyter_server_config.d/hpnb.json``, which names
this module. The routes read the local store (``HPNB_HOME``, or ``HpnbServer.store_path``)
read-only; the only writes are the commands sent to a running search (stop, stop, pause or
resume a trial, extend, parallel), which its driver carries out. Notebooks are saved without the
dashboards' widget views they could not bring back (:mod:`hpnb.jupyter.server.saved_views`).

Example:
    >>> from hpnb.jupyter.server import _jupyter_server_extension_points
    >>> _jupyter_server_extension_points()
    [{'module': 'hpnb.jupyter.server'}]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from traitlets import Unicode
from traitlets.config import Configurable

from hpnb.core.store import StoreLocation, default_store_path, is_server_url

#: the labextension's folder inside the package (built from labextension/, shipped in the wheel).
LABEXTENSION_DIR = Path(__file__).resolve().parents[2] / "labextension"


class HpnbServer(Configurable):
    """Settings of the server extension.

    Example:
        ``jupyter lab --HpnbServer.store_path=/data/hpnb.sqlite``
    """

    store_path = Unicode(
        "",
        help="The hpnb store the routes read: a file or a postgresql:// URL; empty: $HPNB_STORE, "
        "else $HPNB_HOME/hpnb.sqlite (default ~/.hpnb).",
    ).tag(config=True)

    def resolved_store_path(self) -> Path | str:
        """The configured store (a file or a server's URL), else ``HPNB_STORE``, else the default file."""
        if self.store_path:
            return self.store_path if is_server_url(self.store_path) else Path(self.store_path).expanduser()
        return os.environ.get("HPNB_STORE") or default_store_path()


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "hpnb.jupyter.server"}]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": str(LABEXTENSION_DIR), "dest": "hpnb"}]


def _keep_static_summaries(contents_manager: Any) -> None:
    """Saved notebooks keep the dashboards' summaries (see :mod:`hpnb.jupyter.server.saved_views`)."""
    from hpnb.jupyter.server.saved_views import before_save

    if hasattr(contents_manager, "register_pre_save_hook"):
        contents_manager.register_pre_save_hook(before_save)


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from hpnb.jupyter.server.routes import register_handlers

    settings = HpnbServer(parent=serverapp)
    store_path = settings.resolved_store_path()
    register_handlers(serverapp.web_app, store_path)
    _keep_static_summaries(serverapp.contents_manager)
    serverapp.log.info("hpnb: experiment routes at /hpnb/api, store %s", StoreLocation.of(store_path))
