"""Shared test suites that every implementation of an hpnb interface runs.

Example:
    >>> from hpnb.testing import StrategySuite
    >>> StrategySuite.trials
    40
"""

from __future__ import annotations

from hpnb.testing.strategy_suite import StrategySuite, drive, mixed_space, stepped_space

__all__ = ["StrategySuite", "drive", "mixed_space", "stepped_space"]
