"""The objective a detached search keeps beside its trials' checkpoints, for the drivers that run it
later: a detached process, a task on the cluster, ``hpnb resume NAME --detach`` from a terminal.

Example:
    >>> keep_objective(store, record, payload)  # doctest: +SKIP
    >>> kept_objective(store, record)  # doctest: +SKIP
    <function train at 0x...>
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from hpnb.core.errors import HpnbError
from hpnb.core.store import ExperimentRecord, Store
from hpnb.runner.checkpoint_store import CheckpointStore, search_location

#: where a detached search keeps its objective, beside its trials' checkpoints.
OBJECTIVE_FILE = "objective.pkl"


def keep_objective(store: Store, record: ExperimentRecord, payload: bytes) -> None:
    """Keep the pickled objective with the search's checkpoints (a resume from a terminal runs it)."""
    location = search_location(store.path, record.name, record.id, record.created, record.spec)
    CheckpointStore(location).put_search_file(OBJECTIVE_FILE, payload)


def kept_objective(store: Store, record: ExperimentRecord) -> Callable[..., Any]:
    """The objective a detached start of ``record`` kept.

    Raises:
        HpnbError: none was kept (the search never ran detached), or it cannot be loaded here.
    """
    location = search_location(store.path, record.name, record.id, record.created, record.spec)
    try:
        payload = CheckpointStore(location).search_file(OBJECTIVE_FILE)
    except FileNotFoundError:
        raise HpnbError(f"search {record.name!r} has no kept objective (it never ran detached): resume it "
                        "from the notebook that defines it, or give --objective MODULE:FUNCTION") from None
    try:
        objective: Callable[..., Any] = pickle.loads(payload)
    except Exception as exc:
        raise HpnbError(f"search {record.name!r}: its kept objective cannot be loaded here: "
                        f"{type(exc).__name__}: {exc}") from exc
    return objective
