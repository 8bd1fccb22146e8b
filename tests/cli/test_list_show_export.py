from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from hpnb.cli import COMMANDS
from hpnb.core.store import ResultRow, Store, current_owner
from tests.postgres import TestServer

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "runner.py", line 10, in run_trial\n'
    "    result = fn(**params)\n"
    '  File "train.py", line 3, in train\n'
    '    raise ValueError("lr too high")\n'
    "ValueError: lr too high\n"
)

# The real ``main`` of ``hpnb``, limited to the commands under test so that these tests
# do not depend on the other sub-commands being importable.
MAIN = (
    "import sys, hpnb.cli as cli; cli.COMMANDS = ('list', 'show', 'export'); sys.exit(cli.main(sys.argv[1:]))"
)


def hpnb(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", MAIN, *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=None if env is None else {**os.environ, **env})


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "hpnb.sqlite"
    with Store(path) as store:
        spec = {"parameters": {"lr": {"min": 0.001, "max": 1.0}, "optimizer": ["sgd", "adam"]}}
        exp = store.create_experiment(
            "mlp-lr", spec, metric="val_loss", mode="min", strategy="random", budget=12, parallel=2
        )
        # a driver that beats for the next hour: the search reads as RUNNING from any process
        store.update_experiment(exp.id, state="RUNNING", message="running on 2 workers",
                                heartbeat=time.time() + 3600)
        for trial_id in range(12):
            params = {"lr": round(0.05 * (trial_id + 1), 2), "optimizer": "adam" if trial_id % 2 else "sgd"}
            store.add_trial(exp.id, trial_id, params)
            value = None if trial_id == 5 else round(1.0 - 0.07 * abs(trial_id - 7), 2)
            state = "FAILED" if trial_id == 5 else ("RUNNING" if trial_id == 11 else "COMPLETED")
            store.update_trial(
                exp.id, trial_id, state=state, value=value, best=value, last_step=3, start=1000.0 + trial_id,
                end=None if state == "RUNNING" else 1010.0 + trial_id, worker=f"w{trial_id % 2}",
                error=TRACEBACK if trial_id == 5 else None, retries=1 if trial_id == 5 else 0,
            )  # fmt: skip
            rows = [
                ResultRow(trial_id, s, s - 1, 1000.0 + s, value, {"val_loss": value, "acc": s / 10})
                for s in (1, 2)
            ]
            store.add_results(exp.id, rows)
        other = store.create_experiment(
            "tiny", {}, metric="acc", mode="max", strategy="grid", budget=1, parallel=None
        )
        store.update_experiment(other.id, state="COMPLETED")
    return path


def test_list_shows_every_experiment(store_path: Path) -> None:
    done = hpnb("list", "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["name", "owner", "state", "strategy", "progress", "best", "created"]
    assert [row.split()[:6] for row in rows] == [
        ["tiny", current_owner(), "COMPLETED", "grid", "0/1", "-"],
        ["mlp-lr", current_owner(), "RUNNING", "random", "11/12", "0.51"],
    ]


def test_list_of_a_team_store_shows_mine_then_the_teams_with_no_password(
    postgres_server: TestServer, tmp_path: Path
) -> None:
    url = postgres_server.create_database()
    with Store(url) as store:
        for name, owner in (("theirs", "bob@gpu-7"), ("mine", None), ("also-theirs", "eve@lab")):
            store.create_experiment(name, {}, metric="m", mode="min", strategy="random", budget=2,
                                    parallel=1, owner=owner)
    secret = url.replace("postgres@", "postgres:not-needed@")  # trust auth: any password is let in
    done = hpnb("list", "--store", secret)
    assert done.returncode == 0, done.stderr
    lines = [line.split()[:2] for line in done.stdout.splitlines()]
    assert lines == [["mine:"], ["name", "owner"], ["mine", current_owner()], ["the", "team's:"],
                     ["name", "owner"], ["also-theirs", "eve@lab"], ["theirs", "bob@gpu-7"]]
    assert "not-needed" not in done.stdout + done.stderr
    as_json = json.loads(hpnb("list", "--json", env={"HPNB_STORE": secret}).stdout)
    assert [(s["name"], s["owner"], s["group"]) for s in as_json] == [
        ("also-theirs", "eve@lab", "team"), ("mine", current_owner(), "mine"),
        ("theirs", "bob@gpu-7", "team")]


def test_list_of_a_missing_store_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "hpnb.sqlite"
    done = hpnb("list", "--store", str(path))
    assert (done.returncode, done.stdout.strip()) == (0, f"no experiments in {path}")
    assert not path.parent.exists()


def test_list_uses_hpnb_home_by_default(store_path: Path) -> None:
    env = {"HPNB_HOME": str(store_path.parent), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "list"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "mlp-lr" in done.stdout and "tiny" in done.stdout


def test_show_summary_leaderboard_and_failures(store_path: Path) -> None:
    done = hpnb("show", "mlp-lr", "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "mlp-lr  [RUNNING]"
    assert "  progress   11/12 finished (COMPLETED 10, FAILED 1, RUNNING 1)" in lines
    assert "  metric     val_loss (min)" in lines
    assert "  message    running on 2 workers" in lines
    assert "  best       trial 0: val_loss = 0.51  lr=0.05, optimizer='sgd'" in lines
    start = lines.index("Leaderboard (top 10 of 12; value = val_loss, min)")
    board = lines[start + 1 : start + 12]
    assert board[0].split() == ["trial_id", "state", "value", "best", "steps", "duration", "lr", "optimizer"]
    # values 1 - 0.07 * |t - 7|, ties (3/11, 4/10, 6/8) by trial id; 7 and 5 (failed) are off the board
    assert [int(row.split()[0]) for row in board[1:]] == [0, 1, 2, 3, 11, 4, 10, 9, 6, 8]
    assert board[1].split() == ["0", "COMPLETED", "0.51", "0.51", "3", "10", "s", "0.05", "sgd"]  # 10 s
    assert lines[lines.index("Failures (1)") :] == [
        "Failures (1)",
        "  trial 5 (retries 1): lr=0.3, optimizer='adam'",
        "        result = fn(**params)",
        '      File "train.py", line 3, in train',
        '        raise ValueError("lr too high")',
        "    ValueError: lr too high",
    ]


def test_show_unknown_name_suggests_and_exits_2(store_path: Path) -> None:
    done = hpnb("show", "mlp-rl", "--store", str(store_path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        done.stderr.strip()
        == f"hpnb show: no experiment named 'mlp-rl' in {store_path}; did you mean 'mlp-lr'?"
    )


def test_export_csv_to_stdout_and_json_history_to_a_file(store_path: Path, tmp_path: Path) -> None:
    done = hpnb("export", "mlp-lr", "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split(",") == [
        "trial_id", "state", "lr", "optimizer", "value", "best", "steps", "start", "end", "duration",
        "worker", "error", "retries", "parent",
    ]  # fmt: skip
    assert len(lines) == 13
    assert lines[6].split(",")[:5] == ["5", "FAILED", "0.3", "adam", ""]
    assert "ValueError: lr too high" in lines[6]

    target = tmp_path / "history.json"
    done = hpnb("export", "mlp-lr", "--history", "--output", str(target), "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f"wrote 24 rows to {target}"
    records = json.loads(target.read_text())
    assert len(records) == 24
    assert records[0] == {
        "trial_id": 0, "seq": 1, "step": 0, "time": "1970-01-01T00:16:41.000Z", "value": 0.51,
        "val_loss": 0.51, "acc": 0.1,
    }  # fmt: skip
    assert records[11]["value"] is None and records[11]["trial_id"] == 5


def test_export_parquet_round_trips(store_path: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="parquet export needs pyarrow")
    target = tmp_path / "trials.parquet"
    done = hpnb("export", "mlp-lr", "-o", str(target), "--store", str(store_path))  # format from the suffix
    assert done.returncode == 0, done.stderr
    frame = pd.read_parquet(target)
    assert frame["trial_id"].tolist() == list(range(12))
    assert frame["lr"][3] == 0.2 and math.isnan(frame["value"][5]) and frame["value"][7] == 1.0
    assert frame["start"][0] == pd.Timestamp(1000.0, unit="s", tz="UTC")


def test_export_errors_are_clear(store_path: Path, tmp_path: Path) -> None:
    done = hpnb("export", "mlp-lr", "--format", "parquet", "--store", str(store_path))
    if importlib.util.find_spec("pyarrow") is not None:
        assert (done.returncode, done.stderr.strip()) == (
            2,
            "hpnb export: parquet is a binary format: give the file to write with --output PATH",
        )
    done = hpnb("export", "nope", "--store", str(store_path))
    assert done.returncode == 2 and "no experiment named 'nope'" in done.stderr
    done = hpnb("export", "mlp-lr", "-o", str(tmp_path / "missing" / "x.csv"), "--store", str(store_path))
    assert done.returncode == 2 and "hpnb export: cannot write" in done.stderr
    done = hpnb("export", "mlp-lr", "--format", "xml", "--store", str(store_path))
    assert done.returncode == 2 and "invalid choice: 'xml'" in done.stderr


def test_export_parquet_without_pyarrow_says_what_to_install(store_path: Path, tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['pyarrow'] = None; " + MAIN
    target = tmp_path / "t.parquet"
    done = subprocess.run(
        [sys.executable, "-c", blocked, "export", "mlp-lr", "-o", str(target), "--store", str(store_path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "parquet export needs pyarrow, which is not installed: pip install pyarrow" in done.stderr
    assert not target.exists()


def test_store_is_not_modified_by_reading_commands(store_path: Path) -> None:
    before = store_path.read_bytes()
    for args in (["list"], ["show", "mlp-lr"], ["export", "tiny"]):
        assert hpnb(*args, "--store", str(store_path)).returncode == 0
    assert store_path.read_bytes() == before


@pytest.mark.skipif(
    any(importlib.util.find_spec(f"hpnb.cli.{name}") is None for name in COMMANDS),
    reason="some sub-command listed in hpnb.cli.COMMANDS is not in the tree yet",
)
def test_python_m_hpnb_list(store_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hpnb", "list", "--store", str(store_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "mlp-lr" in done.stdout
