"""``hpnb store copy``: a SQLite store into PostgreSQL and back, with everything a search keeps."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hpnb.core.store import ResultRow, Store
from hpnb.core.store.commands import DONE, REFUSED
from hpnb.core.trial_output import TrialOutput
from tests.postgres import TestServer


def hpnb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hpnb", *args], capture_output=True, text=True, timeout=120)


def _fill(store: Store) -> None:
    spec = {"metric": "loss", "checkpoints": {"keep": 2}}
    exp = store.create_experiment("mlp-lr", spec, source="def f(): ...", metric="loss", mode="min",
                                  strategy="tpe", budget=3, parallel=2,
                                  owner="ana@lab1")
    for trial_id in range(3):
        store.add_trial(exp.id, trial_id, {"lr": 10.0 ** -trial_id}, parent=None if trial_id < 2 else 0)
        rows = [ResultRow(trial_id, s, s, 1000.0 + s, 1.0 / (s + trial_id), {"loss": 0.5})
                for s in range(1, 6)]
        store.add_results(exp.id, rows)
    store.update_trial(exp.id, 0, state="COMPLETED", value=0.2, best=0.2, start=1.0, end=2.0, worker="w1")
    store.set_checkpoint(exp.id, 1, 4, "trial-1/ckpt-4")
    store.set_trial_output(exp.id, 0, TrialOutput(attempt=1, stdout="epoch 1\n", stderr="warn\n",
                                                   stdout_bytes=8, stderr_bytes=5, worker="w1"))
    store.add_event(exp.id, "extended", {"by": 1})
    done = store.send_command(exp.id, "extend", 1, source="cli")
    store.answer_command(done.id, DONE, "budget 4")
    refused = store.send_command(exp.id, "stop_trial", 9, source="lab")
    store.answer_command(refused.id, REFUSED, "no trial 9")
    store.update_experiment(exp.id, state="COMPLETED", strategy_state={"seen": [1, 2]}, driver="h:1")
    store.create_experiment("tiny", {}, metric="m", mode="max", strategy="grid", budget=1, parallel=None)


def _everything(store: Store) -> list[dict[str, Any]]:
    kept = []
    for record in store.experiments():
        exp = {k: v for k, v in asdict(record).items() if k != "id"}
        trials = [asdict(t) | {"experiment_id": None} for t in store.trials(record.id)]
        outputs = [store.trial_output(record.id, t["trial_id"]) for t in trials]
        events = [{k: v for k, v in e.items() if k != "id"} for e in store.events(record.id)]
        commands = store._read(lambda conn, i=record.id: [tuple(r) for r in conn.execute(
            "SELECT kind, value, source, created, state, reply, answered FROM commands"
            " WHERE experiment_id = ? ORDER BY id", (i,))], [])
        kept.append({"experiment": exp, "trials": trials, "results": store.results_since(record.id)[0],
                     "outputs": outputs, "events": events, "commands": commands})
    return kept


def test_copy_a_sqlite_store_into_postgresql_and_back(postgres_server: TestServer, tmp_path: Path) -> None:
    first, back = tmp_path / "first.sqlite", tmp_path / "back.sqlite"
    with Store(first) as store:
        _fill(store)
        original = _everything(store)
    url = postgres_server.create_database()
    there = hpnb("store", "copy", str(first), url.replace("postgres@", "postgres:pw-never-shown@"))
    assert there.returncode == 0, there.stderr
    assert there.stdout.strip() == f"copied 2 searches from {first} to {url}"
    done = hpnb("store", "copy", url, str(back))
    assert done.returncode == 0, done.stderr
    for copy in (url, back):
        with Store(copy, readonly=True) as store:
            assert _everything(store) == original
    again = hpnb("store", "copy", str(first), url, "--name", "tiny")
    assert again.returncode == 2
    assert again.stderr.startswith("hpnb store: an experiment named 'tiny' already exists in postgresql://")
