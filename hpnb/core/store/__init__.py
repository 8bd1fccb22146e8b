"""The local experiment store (SQLite): experiments, trials, results, checkpoint references, events.

Example:
    >>> from hpnb.core.store import Store, default_store_path
    >>> default_store_path().name
    'hpnb.sqlite'
"""

from __future__ import annotations

from hpnb.core.store.base import CLEAR
from hpnb.core.store.connection import default_store_path
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
    "StoreVersionError",
    "TrialRecord",
    "UnknownExperiment",
    "UnknownTrial",
    "default_store_path",
    "validate_name",
]
