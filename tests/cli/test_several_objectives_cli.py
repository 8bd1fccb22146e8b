"""hpnb list, show and export of a search with several objectives, through real processes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from hpnb.core.store import Store

MAIN = "import sys, hpnb.cli as cli; sys.exit(cli.main(sys.argv[1:]))"
SPEC = {"metrics": [{"name": "val_loss", "mode": "min"}, {"name": "latency_ms", "mode": "min"}],
        "parameters": {"width": {"min": 0.0, "max": 1.0}}}
# (width, val_loss, latency_ms): 0, 1 and 3 are on the front; 2 is beaten by 1; 4 failed
TRIALS = [(0.1, 0.9, 1.0), (0.5, 0.5, 5.0), (0.6, 0.6, 6.0), (0.9, 0.1, 9.0), (0.7, None, None)]


def hpnb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", MAIN, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "hpnb.sqlite"
    with Store(path) as store:
        exp = store.create_experiment("two-goals", SPEC, metric="val_loss", mode="min", strategy="nsga2",
                                      budget=5, parallel=2)
        for trial_id, (width, loss, latency) in enumerate(TRIALS):
            store.add_trial(exp.id, trial_id, {"width": width})
            metrics = {} if loss is None else {"val_loss": loss, "latency_ms": latency}
            store.update_trial(exp.id, trial_id, state="FAILED" if loss is None else "COMPLETED",
                               value=loss, metrics=metrics, start=1.0, end=2.0)
        store.update_experiment(exp.id, state="COMPLETED")
    return path


def test_show_names_the_objectives_and_prints_the_front(store_path: Path) -> None:
    out = hpnb("show", "two-goals", "--store", str(store_path))
    assert out.returncode == 0, out.stderr
    assert "metrics    val_loss (min), latency_ms (min)" in out.stdout
    assert "front      3 trials" in out.stdout
    front = out.stdout.split("Pareto front (3 trials")[1].split("Failures")[0]
    rows = [line.split() for line in front.splitlines()[2:] if line.strip()]
    assert [row[0] for row in rows] == ["3", "1", "0"]  # best first on val_loss
    board = out.stdout.split("Leaderboard")[1].split("Pareto front")[0]
    assert "by Pareto rank, then crowding distance" in board


def test_show_json_has_the_front_and_no_best(store_path: Path) -> None:
    out = hpnb("show", "two-goals", "--store", str(store_path), "--json")
    data = json.loads(out.stdout)
    assert data["best"] is None and data["front_size"] == 3
    assert [t["trial_id"] for t in data["front"]] == [3, 1, 0]
    assert data["front"][0]["values"] == {"val_loss": 0.1, "latency_ms": 9.0}


def test_export_has_a_column_per_objective_and_the_front_alone(store_path: Path) -> None:
    everything = pd.read_csv(io.StringIO(hpnb("export", "two-goals", "--store", str(store_path)).stdout))
    assert list(everything["latency_ms"])[:4] == [1.0, 5.0, 6.0, 9.0]
    assert list(everything["pareto_rank"].fillna(-1)) == [0, 0, 1, 0, -1]
    front = json.loads(hpnb("export", "two-goals", "--front", "--format", "json", "--store",
                            str(store_path)).stdout)
    assert [row["trial_id"] for row in front] == [3, 1, 0]


def test_importance_has_one_bar_set_per_objective(store_path: Path) -> None:
    out = hpnb("show", "two-goals", "--store", str(store_path), "--importance")
    assert out.returncode == 0, out.stderr
    assert "4 completed trials; val_loss, min)" in out.stdout
    assert "4 completed trials; latency_ms, min)" in out.stdout
    data = json.loads(hpnb("show", "two-goals", "--store", str(store_path), "--importance", "--json").stdout)
    assert data == {"val_loss": {"width": 1.0}, "latency_ms": {"width": 1.0}}


def test_list_shows_the_size_of_the_front(store_path: Path) -> None:
    out = hpnb("list", "--store", str(store_path))
    assert out.returncode == 0, out.stderr
    header, row = out.stdout.splitlines()[:2]
    assert "front" in header.split()
    assert row.split()[header.split().index("front")] == "3"


RUN_SPEC = textwrap.dedent("""\
    metrics:
      - {name: val_loss, mode: min}
      - {name: latency_ms, mode: min}
    strategy: random
    trials: 6
    seed: 1
    parameters:
      width: {min: 0.0, max: 1.0}
    resources: {workers: 2}
    """)
RUN_OBJECTIVE = textwrap.dedent("""\
    def train(width):
        return {"val_loss": 1.0 - width, "latency_ms": 10.0 * width}
    """)


def test_run_prints_the_size_of_the_front_and_no_best(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(RUN_SPEC)
    (tmp_path / "train.py").write_text(RUN_OBJECTIVE)
    env = {**os.environ, "HPNB_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "hpnb", "run", "spec.yaml", "--objective", "train:train", "--name", "t"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    final = lines[lines.index("search 't': COMPLETED") - 1]
    assert final.split()[1] == "6/6"
    # every trial is on the front: a wider one is worse on val_loss and better on latency_ms
    assert "front 6" in final and "best" not in final
    store = str(tmp_path / "home" / "hpnb.sqlite")
    shown = json.loads(hpnb("show", "t", "--store", store, "--json").stdout)
    assert shown["front_size"] == 6
