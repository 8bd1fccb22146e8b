"""Whether the cluster's workers reach the checkpoint store the driver writes to.

The driver writes a probe, and one worker reads it back through its own fsspec backend and
credentials. A store named in the spec that a worker cannot read is an error before any
trial starts; the default folder on the driver's disk, unseen by workers on other machines,
is a warning recorded with the search (checkpoints would not survive a move to another
worker, nor reach an exploiting member there).

Example:
    >>> problem = workers_problem(client, location)  # doctest: +SKIP
    >>> problem is None  # every worker sees the store  # doctest: +SKIP
    True
"""

from __future__ import annotations

import secrets
from typing import Any

from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore

#: seconds to wait for a worker to read the probe; no answer is no verdict (the cluster is busy).
PROBE_TIMEOUT = 20.0


def _reads_probe(location: CheckpointLocation, relative: str) -> str | None:
    """On a worker: None when it reads the probe, else why not."""
    try:
        store = CheckpointStore(location)
        store.fs.cat_file(store.path(relative))
    except Exception as err:  # a missing backend, credentials, a folder only the driver has
        return f"{type(err).__name__}: {err}"
    return None


def workers_problem(client: Any, location: CheckpointLocation) -> str | None:
    """Why a worker of ``client`` cannot read what the driver writes to ``location``, or None (it
    can, or no worker answered in time: nothing is known)."""
    if not client.ncores():  # asked of the scheduler (its cached info may predate the workers)
        return None
    store = CheckpointStore(location)
    relative = f".hpnb-probe-{secrets.token_hex(8)}"
    store.put_probe(relative)
    try:
        future = client.submit(_reads_probe, location, relative, pure=False,
                               key=f"hpnb-checkpoint-probe-{secrets.token_hex(4)}")
        try:
            return future.result(timeout=PROBE_TIMEOUT)
        except Exception:
            future.cancel()
            return None
    finally:
        store.delete_probe(relative)


def unreachable_message(location: CheckpointLocation, problem: str, named: bool) -> str:
    """What the search says when its workers cannot read the checkpoint store."""
    where = f"checkpoints.store: the workers cannot read {location.url!r} ({problem})"
    if named:
        return f"{where}; give a store every worker reaches, with its fsspec backend and credentials"
    return (f"{where}: checkpoints are kept on this machine, so a trial retried or exploiting on another "
            "machine starts over; give checkpoints: {store: s3://bucket/prefix} or a shared folder")
