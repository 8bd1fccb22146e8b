"""hpnb's own local cluster kept at its declared size.

A nanny restarts its worker when the process dies, but under repeated deaths it gives up and
closes, and the cluster shrinks for good. A keeper thread looks every :data:`KEEP_INTERVAL`
seconds: a nanny that closed by itself is dropped and a new one started in its place, from the
cluster's own worker spec. Adaptive clusters choose their size themselves and are left alone.

Example:
    >>> from distributed import LocalCluster  # doctest: +SKIP
    >>> keep_size(LocalCluster(n_workers=3))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

log = logging.getLogger("hpnb")

#: seconds between two looks at the cluster's nannies.
KEEP_INTERVAL = 1.0
#: nanny states that mean it will not start a worker again by itself.
_GONE = ("closing", "closed", "failed", "closing_gracefully")


def keep_size(cluster: Any) -> threading.Thread:
    """Start the thread that keeps ``cluster`` (a ``SpecCluster``) at the size its spec declares
    now; it ends with the cluster."""
    thread = threading.Thread(target=_keep, args=(cluster, len(cluster.worker_spec)), daemon=True,
                              name="hpnb-cluster-keeper")
    thread.start()
    return thread


def _keep(cluster: Any, size: int) -> None:
    while _status(cluster) not in _GONE:
        time.sleep(KEEP_INTERVAL)
        try:
            replaced = replace_gone(cluster, size)
        except Exception as exc:  # the cluster closing under us: the loop ends at its next look
            log.debug("hpnb could not check the local cluster's workers: %s", exc)
            continue
        if replaced:
            log.warning("hpnb restarted %d worker(s) of its local cluster whose nanny had given up", replaced)


def replace_gone(cluster: Any, size: int) -> int:
    """Drop the nannies of ``cluster`` that closed by themselves and start new ones up to ``size``;
    how many were replaced."""
    if _status(cluster) in _GONE:
        return 0
    gone = [name for name, nanny in list(cluster.workers.items()) if _status(nanny) in _GONE]
    missing = size - (len(cluster.workers) - len(gone))
    if not gone and missing <= 0:
        return 0
    for name in gone:
        cluster.workers.pop(name, None)
    with contextlib.suppress(RuntimeError):  # the loop closing
        cluster.scale(size)
    return max(len(gone), missing)


def _status(thing: Any) -> str:
    status = getattr(thing, "status", None)
    return str(getattr(status, "name", status))
