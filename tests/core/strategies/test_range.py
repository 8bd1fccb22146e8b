"""The range strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestRangeSuite(StrategySuite):
    strategy = "range"
    finite_only = True
    seeded = False
