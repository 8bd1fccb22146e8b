"""The grid strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestGridSuite(StrategySuite):
    strategy = "grid"
    finite_only = True
    seeded = False
