"""``hpnb show`` and ``hpnb export`` of a search with constraints (infeasible trials shown as such),
and ``hpnb check`` of a spec with constraints."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from hpnb.core.store import Store

MAIN = ("import sys, hpnb.cli as cli; cli.COMMANDS = ('show', 'export', 'check'); "
        "sys.exit(cli.main(sys.argv[1:]))")


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


@pytest.mark.parametrize(("strategy", "words"), [
    ("tpe", "constraints:    latency_ms <= 20, 1 <= size <= 5 (tpe learns them; infeasible trials are "
            "never best)"),
    ("random", "(random ignores them when choosing trials: tpe, gp, nsga2, evolution or auto learn them;"),
])
def test_check_prints_the_constraints_and_whether_the_strategy_learns_them(tmp_path: Path, strategy, words):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"metric: loss\nstrategy: {strategy}\nparameters:\n  x: {{min: 0.0, max: 1.0}}\n"
                    "constraints:\n  latency_ms: {max: 20}\n  size: {min: 1, max: 5}\n")
    checked = hpnb("check", str(spec))
    assert checked.returncode == 0, checked.stderr
    assert words in checked.stdout


def test_check_names_a_bad_constraint_and_its_line(tmp_path: Path):
    spec = tmp_path / "spec.yaml"
    spec.write_text("metric: loss\nparameters:\n  x: {min: 0.0, max: 1.0}\nconstraints:\n  latency_ms: 20\n")
    checked = hpnb("check", str(spec))
    assert checked.returncode == 2
    assert "constraints.latency_ms: must give its bounds as min: and/or max: (got 20); allowed: {max: 20}" \
        in checked.stderr and "[line 5]" in checked.stderr
