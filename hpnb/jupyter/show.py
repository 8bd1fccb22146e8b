"""``hpnb.show(name)``: the dashboard of any stored search (the notebook's side of showing a search;
``hpnb show NAME``, :mod:`hpnb.cli.show`, is the terminal's).

A search this kernel drives gets its live dashboard with every control. Any
other (finished, running in another process, or interrupted by a kernel
restart) is opened read-only from the store; its Resume button continues it
here with the objective named in its stored record (``%%hpsearch OBJECTIVE``),
looked up in the notebook's namespace.

Example:
    >>> import hpnb
    >>> hpnb.show("mlp-lr")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.jupyter import live

if TYPE_CHECKING:
    from hpnb.api import Search, StoreLike
    from hpnb.jupyter.dashboard.dashboard import Dashboard


def open_search(name: str, store: StoreLike = None) -> Search:
    """The live handle of ``name`` if this kernel drives it, else a read-only one from the store."""
    import hpnb

    found = live.find(name, live.store_path(store))
    return found if found is not None else hpnb.load(name, store=store)


def resume_from_namespace(search: Search, store: StoreLike = None) -> Search:
    """Resume ``search`` with the objective its record names, taken from the notebook's namespace."""
    from IPython import get_ipython

    from hpnb.core.errors import HpnbError
    from hpnb.jupyter.resume import resume_here

    shell = get_ipython()
    if shell is None:
        raise HpnbError(f"{search.name!r} can be resumed from a notebook only; use hpnb resume")
    return resume_here(search.name, store=store, namespace=shell.user_ns)


def show(name: str, *, store: StoreLike = None, display: bool = False) -> Dashboard:
    """The dashboard of ``name``; as a cell's last value it is displayed (or pass ``display=True``)."""
    from hpnb.jupyter.dashboard.dashboard import Dashboard

    search = open_search(name, store)
    dashboard = Dashboard(search, resume=lambda: resume_from_namespace(search, store))
    if display:
        from IPython.display import display as show_output

        dashboard.display_handle = show_output(dashboard, display_id=True)
    return dashboard
