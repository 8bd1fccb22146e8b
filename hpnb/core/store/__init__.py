"""The experiment store (a SQLite file, or a PostgreSQL database named by a URL): experiments, trials,
results, checkpoint references, events, commands.

Example:
    >>> from hpnb.core.store import Store, default_store_path
    >>> default_store_path().name
    'hpnb.sqlite'
"""

from __future__ import annotations

from hpnb.core.store.base import CLEAR
from hpnb.core.store.location import StoreLocation, default_store_path, is_server_url, mask_url
from hpnb.core.store.owners import current_owner
from hpnb.core.store.records import (
    ExperimentRecord,
    ResultRow,
    TrialRecord,
    validate_name,
)
from hpnb.core.store.store import Store
from hpnb.core.store.store_errors import (
    InvalidName,
    NameTaken,
    ReadOnlyStore,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreUnreachable,
    StoreVersionError,
    UnknownExperiment,
    UnknownTrial,
)

__all__ = [
    "CLEAR",
    "ExperimentRecord",
    "InvalidName",
    "NameTaken",
    "ReadOnlyStore",
    "ResultRow",
    "Store",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreLocation",
    "StoreUnreachable",
    "StoreVersionError",
    "TrialRecord",
    "UnknownExperiment",
    "UnknownTrial",
    "current_owner",
    "default_store_path",
    "is_server_url",
    "mask_url",
    "validate_name",
]
