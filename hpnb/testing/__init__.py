"""Shared test suites that every implementation of an hpnb interface runs, and a scripted executor.

The suites need pytest; the toys and helpers beside them (``hpnb.testing.pbt_toy``) do not, so the
names below are imported when first used.

Example:
    >>> from hpnb.testing import StrategySuite
    >>> StrategySuite.trials
    40
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hpnb.testing.driver_commands import send
    from hpnb.testing.scripted_executor import Call, Done, Hold, Lost, Report, ScriptedExecutor, Start
    from hpnb.testing.strategy_suite import StrategySuite, drive, mixed_space, stepped_space

_EXECUTOR = ("Call", "Done", "Hold", "Lost", "Report", "ScriptedExecutor", "Start")
#: public name -> the module of hpnb.testing that defines it.
_WHERE = {
    **dict.fromkeys(_EXECUTOR, "scripted_executor"),
    **dict.fromkeys(("StrategySuite", "drive", "mixed_space", "stepped_space"), "strategy_suite"),
    "send": "driver_commands",
}

__all__ = ["Call", "Done", "Hold", "Lost", "Report", "ScriptedExecutor", "Start", "StrategySuite", "drive",
           "mixed_space", "send", "stepped_space"]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"hpnb.testing.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
