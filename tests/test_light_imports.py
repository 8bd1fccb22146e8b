"""What starting costs: ``import hpnb`` (every trial, ``hpnb check``) and the check of a spec (a
cold ``%%hpsearch`` cell runs it before it returns) load none of the heavy libraries; each
loads them when it first needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("dask", "distributed", "fsspec", "optuna", "pandas", "scipy")

CHECK_DEFAULT_SPEC = """
from hpnb.core.spec import parse_spec
spec = parse_spec({"metric": "loss", "trials": 40, "parameters": {"x": {"min": 0.0, "max": 1.0}}})
assert spec.strategy.name == "auto", spec.strategy  # auto builds a Gaussian process for this space
"""


@pytest.mark.parametrize("code", ["import hpnb", CHECK_DEFAULT_SPEC], ids=["import hpnb", "check a spec"])
def test_starting_loads_no_heavy_library(code: str) -> None:
    script = f"{code}\nimport sys\nprint(*sorted(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
