"""The bohb strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestBOHBSuite(StrategySuite):
    strategy = "bohb"
    optimises = True
