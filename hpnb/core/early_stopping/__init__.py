"""Early-stopping rules, one per module, looked up by the name a spec uses.

Example:
    >>> scheduler_class("none").name
    'none'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpnb.core.early_stopping.base import Scheduler

#: rule name -> "module:Class" below hpnb.core.early_stopping (imported on first use).
SCHEDULERS: dict[str, str] = {
    "none": "base:NoStopping",
    "median": "median:MedianStopping",
    "asha": "asha:ASHA",
    "hyperband": "hyperband:Hyperband",
}


def scheduler_class(name: str) -> type[Scheduler]:
    """The class implementing early-stopping rule ``name`` (a KeyError for unknown names)."""
    module, cls = SCHEDULERS[name].split(":")
    return getattr(importlib.import_module(f"hpnb.core.early_stopping.{module}"), cls)
