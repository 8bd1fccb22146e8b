"""The cmaes strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestCMAESSuite(StrategySuite):
    strategy = "cmaes"
    optimises = True
