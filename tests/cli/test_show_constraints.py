"""``hpnb show`` and ``hpnb export`` of a search with constraints: infeasible trials shown as such."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from hpnb.core.store import Store

MAIN = "import sys, hpnb.cli as cli; cli.COMMANDS = ('show', 'export'); sys.exit(cli.main(sys.argv[1:]))"


def hpnb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", MAIN, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Trial i: loss 1 - i / 10, size 10 i; trial 3 never reports its size."""
    path = tmp_path_factory.mktemp("store") / "hpnb.sqlite"
    spec = {"metric": "loss", "parameters": {"i": {"type": "int", "min": 0, "max": 9}},
            "constraints": {"size": {"max": 40.0}}}
    with Store(path) as store:
        exp = store.create_experiment("small", spec, metric="loss", mode="min", strategy="tpe", budget=6,
                                      parallel=1)
        for i in range(6):
            store.add_trial(exp.id, i, {"i": i})
            metrics = {"loss": 1 - i / 10} if i == 3 else {"loss": 1 - i / 10, "size": 10.0 * i}
            store.update_trial(exp.id, i, state="COMPLETED", value=1 - i / 10, best=1 - i / 10, start=1.0,
                               end=2.0, metrics=metrics)
        store.update_experiment(exp.id, state="COMPLETED")
    return path


def test_show_names_the_constraints_and_the_best_feasible_trial(store_path: Path) -> None:
    shown = hpnb("show", "small", "--store", str(store_path))
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "constraints size <= 40 (2 infeasible trials, never best)" in out
    assert "best       trial 4: loss = 0.6" in out
    board = out.split("Leaderboard", 1)[1].splitlines()
    assert "infeasible trials after the feasible ones" in board[0] and "feasible" in board[1]
    ids = [int(line.split()[0]) for line in board[2:8]]
    assert ids == [4, 2, 1, 0, 5, 3]  # the feasible by loss, then the infeasible by loss


def test_export_has_a_feasible_column(store_path: Path) -> None:
    exported = hpnb("export", "small", "--store", str(store_path), "--format", "csv")
    assert exported.returncode == 0, exported.stderr
    frame = pd.read_csv(io.StringIO(exported.stdout))
    assert dict(zip(frame["trial_id"], frame["feasible"], strict=True)) == {
        0: True, 1: True, 2: True, 3: False, 4: True, 5: False}
