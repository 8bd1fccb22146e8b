"""The magics running real searches (local Dask cluster, real store file) in a real IPython shell."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

from tests.jupyter.magic_shell import magic_shell
from tests.waiting import patience

pytestmark = pytest.mark.slow

SPEC = """metric: loss
strategy: random
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
  layers: {type: int, min: 1, max: 3}
resources: {workers: 2}
"""

OBJECTIVES = """
import time
import hpnb

def train(lr, layers):
    for step in range(3):
        hpnb.report(step=step, loss=lr * layers + 1.0 / (step + 1))
    return {"loss": lr * layers}

def slow(lr, layers):
    for step in range(2000):
        hpnb.report(step=step, loss=lr)
        time.sleep(0.01)  # the trial's work
    return {"loss": lr}
"""


@pytest.fixture(scope="module")
def ip():
    with magic_shell(OBJECTIVES) as shell:
        yield shell


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "hpnb.sqlite"


def test_wait_runs_the_budget_and_puts_the_handle_under_the_name(ip, store: Path, capsys) -> None:
    ip.run_cell_magic("hpsearch", f"train --name mlp-lr --trials 5 --parallel 2 --wait --store {store}", SPEC)

    search = ip.user_ns["mlp_lr"]  # the name, made an identifier
    assert search.name == "mlp-lr" and search.state == "COMPLETED"
    assert len(search.results) == 5
    assert search.spec.parallel == 2
    out = capsys.readouterr().out
    assert "hpnb search 'mlp-lr' (random, minimise loss): COMPLETED" in out  # the final summary
    assert "5/5 trials done" in out


def test_out_and_strategy_options(ip, store: Path) -> None:
    body = "metric: loss\nparameters:\n  lr: [0.1, 0.2]\n  layers: [1, 2]\n"
    ip.run_cell_magic("hpsearch", f"train --name g -o grid_run --strategy grid --wait --store {store}", body)

    search = ip.user_ns["grid_run"]
    assert search.spec.strategy.name == "grid"
    results = search.results
    assert len(results) == 4  # the whole grid
    assert sorted(zip(results["lr"], results["layers"])) == [(0.1, 1), (0.1, 2), (0.2, 1), (0.2, 2)]


def test_the_cell_returns_while_the_search_runs(ip, store: Path) -> None:
    ip.run_cell_magic("hpsearch", f"slow --name bg --trials 2 --store {store}", SPEC)

    search = ip.user_ns["bg"]
    assert search.state == "RUNNING" and search.is_live
    search.stop()
    assert search.wait(patience(60)).state == "STOPPED"


def test_rerunning_a_cell_shows_its_search_and_names_what_changed(ip, store: Path, capsys) -> None:
    line = f"train --name again --trials 2 --wait --store {store}"
    ip.run_cell_magic("hpsearch", line, SPEC)
    first = ip.user_ns["again"]

    ip.run_cell_magic("hpsearch", line, SPEC)  # the same cell again: no error, no new trial
    again = ip.user_ns["again"]
    assert again.experiment_id == first.experiment_id and len(again.results) == 2
    assert "'again' ran already with this spec (COMPLETED)" in capsys.readouterr().out

    changed = SPEC.replace("max: 1.0e-1", "max: 1.0")
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("hpsearch", line.replace("--trials 2", "--trials 3"), changed)
    assert type(info.value) is UsageError
    message = str(info.value)
    assert "trials: 2 → 3, parameters.lr.max: 0.1 → 1.0" in message
    assert "--resume" in message and "--overwrite" in message and "--name" in message

    ip.run_cell_magic("hpsearch", line.replace("--trials 2", "--trials 3") + " --overwrite", SPEC)
    assert len(ip.user_ns["again"].results) == 3

    ip.run_cell_magic("hpsearch", line + " --resume", SPEC)
    assert ip.user_ns["again"].state == "COMPLETED" and len(ip.user_ns["again"].results) == 3


def test_line_magic_list_show_and_export(ip, store: Path, tmp_path: Path) -> None:
    ip.run_cell_magic("hpsearch", f"train --name listed --trials 3 --wait --store {store}", SPEC)

    table = ip.run_line_magic("hpsearch", f"list --store {store}")
    row = table.set_index("name").loc["listed"]
    assert (row["state"], row["progress"]) == ("COMPLETED", "3/3")

    dashboard = ip.run_line_magic("hpsearch", f"show listed --store {store}")
    bundle = dashboard._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("hpnb search 'listed' (random, minimise loss): COMPLETED")
    assert "<table>" in bundle["text/html"]

    frame = ip.run_line_magic("hpsearch", f"export listed --store {store}")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 3
    for fmt in ("csv", "json", "parquet"):
        target = tmp_path / f"out.{fmt}"
        ip.run_line_magic("hpsearch", f"export listed --output {target} --store {store}")
        assert target.exists()
    assert len(pd.read_csv(tmp_path / "out.csv")) == 3
    assert len(json.loads((tmp_path / "out.json").read_text())) == 3
    assert len(pd.read_parquet(tmp_path / "out.parquet")) == 3
    explicit = tmp_path / "results.txt"
    ip.run_line_magic("hpsearch", f"export listed --format csv --output {explicit} --store {store}")
    assert len(pd.read_csv(explicit)) == 3


def test_line_magic_stop_extend_and_resume(ip, store: Path) -> None:
    ip.run_cell_magic("hpsearch", f"slow --name ctl --trials 4 --parallel 2 --store {store}", SPEC)
    ip.run_line_magic("hpsearch", f"stop ctl --store {store}")
    assert ip.user_ns["ctl"].wait(patience(60)).state == "STOPPED"

    # the stored record names the objective: resume finds `slow` in the namespace
    ip.run_cell("slow_steps = 0")
    ip.run_cell(OBJECTIVES.replace("range(2000)", "range(2)"))
    ip.run_line_magic("hpsearch", f"resume ctl --wait --store {store}")
    resumed = ip.user_ns["ctl"]
    assert resumed.state == "COMPLETED" and len(resumed.results) == 4

    ip.run_line_magic("hpsearch", f"extend ctl 2 --store {store}")
    extended = ip.user_ns["ctl"].wait(patience(60))
    assert extended.state == "COMPLETED" and len(extended.results) == 6
    ip.run_cell(OBJECTIVES)
