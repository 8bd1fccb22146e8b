"""Shared test suites that every implementation of an hpnb interface runs, and a scripted executor.

Example:
    >>> from hpnb.testing import StrategySuite
    >>> StrategySuite.trials
    40
"""

from __future__ import annotations

from hpnb.testing.scripted_executor import Call, Done, Hold, Lost, Report, ScriptedExecutor, Start
from hpnb.testing.strategy_suite import StrategySuite, drive, mixed_space, stepped_space

__all__ = ["Call", "Done", "Hold", "Lost", "Report", "ScriptedExecutor", "Start", "StrategySuite", "drive",
           "mixed_space", "stepped_space"]
