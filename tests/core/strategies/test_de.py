"""The de strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestDifferentialEvolutionSuite(StrategySuite):
    strategy = "de"
    optimises = True
