"""What starting costs: ``import hpnb`` (every trial, ``hpnb check``), the check of a spec (a
cold ``%%hpsearch`` cell runs it before it returns) and everything the first cell runs before it
returns (the handle, the dashboard, the start of a driver, whose runner is imported in the start's
own thread) load none of the heavy libraries; each loads them when it first needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("dask", "distributed", "fsspec", "optuna", "pandas", "scipy")
#: what a cell imports before it returns, besides the heavy libraries above
CELL_PATH_HEAVY = (*HEAVY, "plotly", "sklearn", "hpnb.runner.driver", "hpnb.runner.dask_executor",
                   "hpnb.tracking.mlflow")

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


FIRST_CELL_PATH = """
import hpnb.jupyter.magic, hpnb.api, hpnb.driving.launch, hpnb.jupyter.dashboard.dashboard, hpnb.jupyter.live
from hpnb.runner.checkpoint_store import CheckpointLocation, probe_store
import tempfile
probe_store(CheckpointLocation(tempfile.mkdtemp(), "s-1"))  # a cell probes its checkpoint folder
"""


def test_what_the_first_cell_runs_before_it_returns_loads_no_heavy_library() -> None:
    listed = f"print(*sorted(m for m in {CELL_PATH_HEAVY!r} if m in sys.modules))"
    script = f"{FIRST_CELL_PATH}\nimport sys\n{listed}"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
