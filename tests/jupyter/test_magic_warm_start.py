"""Warm starts from a %%hpsearch cell in a real IPython shell: enqueue runs first, warm_start prints what
it learns, and an unknown source is a UsageError naming the field and the cell's line."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError

from tests.jupyter.magic_shell import magic_shell

pytestmark = pytest.mark.slow

OBJECTIVE = """
def train(lr, layers):
    return {"loss": (lr - 0.05) ** 2 + layers}
"""
SPACE = """parameters:
  lr: {min: 0.0, max: 0.1}
  layers: {type: int, min: 1, max: 3}
resources: {workers: 2}
"""


@pytest.fixture(scope="module")
def ip():
    with magic_shell(OBJECTIVE) as shell:
        yield shell


def test_a_cell_enqueues_then_warm_starts_from_it(ip, tmp_path: Path, capsys) -> None:
    store = tmp_path / "hpnb.sqlite"
    first = "metric: loss\nstrategy: random\nenqueue:\n  - {lr: 0.05, layers: 1}\n" + SPACE
    ip.run_cell_magic("hpsearch", f"train --name first --trials 6 --wait --store {store}", first)
    trials = ip.user_ns["first"].results
    assert trials.loc[0, "lr"] == 0.05 and trials.loc[0, "layers"] == 1
    second = "metric: loss\nstrategy: tpe\nwarm_start: {from: first}\n" + SPACE
    capsys.readouterr()
    ip.run_cell_magic("hpsearch", f"train --name second --trials 3 --wait --store {store}", second)
    assert "warm start from 'first': learns 6 completed trials" in capsys.readouterr().out
    assert ip.user_ns["second"].state == "COMPLETED"


def test_an_unknown_source_is_a_usage_error_with_its_line(ip, tmp_path: Path) -> None:
    cell = "metric: loss\nstrategy: tpe\nwarm_start:\n  from: missing-search\n" + SPACE
    with pytest.raises(UsageError, match=r"warm_start.from: names no search in the store .*\[line 4\]"):
        ip.run_cell_magic("hpsearch", f"train --name third --store {tmp_path / 'hpnb.sqlite'}", cell)
