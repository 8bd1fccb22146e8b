"""``detach:``: where the search's driver runs. Absent or ``false``: in the process that starts the
search (a notebook's kernel). ``true`` or ``process``: in a process of its own on this machine,
which outlives the kernel. ``cluster``: as a long-running task on a worker of the search's own
Dask cluster, so that the machine that started it may go away (the store must then be one the
workers reach: see docs/scaling-out.md).

Example:
    >>> parse_detach(True), parse_detach("cluster"), parse_detach(False), parse_detach(None)
    ('process', 'cluster', None, None)
"""

from __future__ import annotations

from typing import Any

from hpnb.core.errors import SpecError

#: where a detached driver may run.
DETACH_MODES = ("process", "cluster")
DETACH_HELP = "false (in the starting process), true or process (a process of its own), cluster (on a worker)"


def parse_detach(value: Any, field: str = "detach") -> str | None:
    """``detach:`` as ``"process"``, ``"cluster"`` or None (in the starting process)."""
    if value is None or value is False:
        return None
    if value is True:
        return "process"
    if isinstance(value, str) and value.strip().lower() in DETACH_MODES:
        return value.strip().lower()
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "none", "kernel"):
        return None
    raise SpecError(field, "must say where the driver runs", value=value, allowed=DETACH_HELP)
