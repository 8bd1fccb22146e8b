"""Resuming a stored search in this kernel: the one path behind ``%hpsearch resume``,
``%hpsearch extend`` and the dashboard's Resume button.

Example (in a notebook)::

    search = resume_here("mlp-lr", store=None, namespace=get_ipython().user_ns)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import HpnbError
from hpnb.jupyter import live
from hpnb.jupyter.namespace import resolve_objective, stored_objective_name

if TYPE_CHECKING:
    from hpnb.api import Search, StoreLike


def resume_here(name: str, *, store: StoreLike, namespace: Mapping[str, Any],
                objective: str | None = None, detach: bool | str | None = None) -> Search:
    """Continue ``name`` from this kernel with ``objective`` (a name in ``namespace``; default: the
    one its stored record names), in a driver of its own with ``detach``, and remember the handle
    for ``%hpsearch show``.

    Raises:
        HpnbError: it already runs in this kernel, its objective is unknown, or another process
            drives it.
    """
    import hpnb

    existing = live.find(name, live.store_path(store))
    if existing is not None and existing.is_live:
        raise HpnbError(f"{name!r} is already running in this kernel")
    stored = hpnb.load(name, store=store)
    function_name = objective or stored_objective_name(stored.record)
    if not function_name and stored.spec.section is None:
        raise HpnbError(f"{name!r}: the store does not name its objective; add --objective FUNC")
    function = resolve_objective(function_name, namespace) if function_name else None
    search = hpnb.resume(name, function, store=store, namespace=namespace, detach=detach)
    live.register(search)
    return search
