"""Jupyter integration: the ``%%hpsearch`` / ``%hpsearch`` magics and the live dashboard.

Importing this package is cheap: IPython, ipywidgets and plotly are imported
only when the extension is loaded or a dashboard is shown.

Example:
    >>> from IPython.testing.globalipapp import get_ipython  # doctest: +SKIP
    >>> ip = get_ipython()  # doctest: +SKIP
    >>> ip.run_line_magic("load_ext", "hpnb")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from hpnb.api import StoreLike
    from hpnb.jupyter.dashboard.dashboard import Dashboard

__all__ = ["load_ipython_extension", "show", "unload_ipython_extension"]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """Register ``%%hpsearch`` and ``%hpsearch`` (what ``%load_ext hpnb`` calls).

    Loading twice is harmless: the second registration replaces the first. What the first
    ``%%hpsearch`` cell needs is imported in the background from here on.
    """
    from hpnb.jupyter import warmup
    from hpnb.jupyter.magic import HpsearchMagics

    ipython.register_magics(HpsearchMagics)
    warmup.start()


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """Remove the magics again (what ``%unload_ext hpnb`` calls)."""
    from hpnb.jupyter.magic import HpsearchMagics

    manager = ipython.magics_manager
    registered = manager.registry.pop(HpsearchMagics.__name__, None)
    for kind in ("line", "cell"):
        table = manager.magics[kind]
        bound = table.get("hpsearch")
        if bound is not None and getattr(bound, "__self__", None) is registered:
            del table["hpsearch"]


def show(name: str, *, store: StoreLike = None, display: bool = False) -> Dashboard:
    """The dashboard of a stored search: live here, finished, or interrupted.

    As the last value of a cell it is displayed; ``display=True`` displays it at once.

    Example:
        >>> import hpnb
        >>> hpnb.show("mlp-lr")  # doctest: +SKIP
    """
    from hpnb.jupyter import warmup

    with warmup.cell():
        from hpnb.jupyter.show import show as show_dashboard

        return show_dashboard(name, store=store, display=display)
