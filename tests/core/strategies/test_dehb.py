"""The dehb strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestDEHBSuite(StrategySuite):
    strategy = "dehb"
    optimises = True
