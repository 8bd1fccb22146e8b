"""The tpe strategy: the shared suite and its own behaviour."""

from __future__ import annotations

from hpnb.testing import StrategySuite


class TestTPESuite(StrategySuite):
    strategy = "tpe"
    optimises = True
