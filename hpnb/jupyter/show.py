"""``hpnb.show(name)``: the dashboard of any stored search.

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

from pathlib import Path
from typing import Any

from hpnb.jupyter import live


def _store_path(store: Any) -> Path:
    from hpnb.core.store import Store, default_store_path

    if isinstance(store, Store):
        return store.path
    return Path(store).expanduser() if store is not None else default_store_path()


def open_search(name: str, store: Any = None) -> Any:
    """The live handle of ``name`` if this kernel drives it, else a read-only one from the store."""
    import hpnb

    found = live.find(name, _store_path(store))
    return found if found is not None else hpnb.load(name, store=store)


def resume_from_namespace(search: Any, store: Any = None) -> Any:
    """Resume ``search`` with the objective its record names, taken from the notebook's namespace."""
    from IPython import get_ipython

    import hpnb
    from hpnb.core.errors import HpnbError
    from hpnb.jupyter.namespace import resolve_objective, stored_objective_name

    shell = get_ipython()
    objective_name = stored_objective_name(search.record)
    if shell is None or objective_name is None:
        raise HpnbError(f"{search.name!r}: the store does not name its objective; "
                        f"use %hpsearch resume {search.name} --objective FUNC")
    objective = resolve_objective(objective_name, shell.user_ns)
    resumed = hpnb.resume(search.name, objective, store=store, namespace=shell.user_ns)
    live.register(resumed)
    return resumed


def show(name: str, *, store: Any = None, display: bool = False) -> Any:
    """The dashboard of ``name``; as a cell's last value it is displayed (or pass ``display=True``)."""
    from hpnb.jupyter.dashboard.dashboard import Dashboard

    search = open_search(name, store)
    dashboard = Dashboard(search, resume=lambda: resume_from_namespace(search, store))
    if display:
        from IPython.display import display as show_output

        dashboard.display_handle = show_output(dashboard, display_id=True)
    return dashboard
