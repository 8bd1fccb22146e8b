"""Trials that span several workers under the drivers that outlive their starter: ``detach:
process`` and ``detach: cluster``, on a scheduler and single-thread worker processes on 127.0.0.1,
started by ``hpnb run`` as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hpnb
from tests.runner import processes
from tests.waiting import patience

pytestmark = pytest.mark.slow

OBJECTIVE = textwrap.dedent("""\
    import os

    import hpnb


    def train(x):
        for step in range(3):
            hpnb.report(step=step, loss=x + step, rank=int(os.environ["RANK"]),
                        world=int(os.environ["WORLD_SIZE"]))
        return {"loss": x}
    """)


@pytest.mark.parametrize("detach", ["process", "cluster"])
def test_a_detached_driver_runs_trials_of_two_ranks(tmp_path: Path, detach: str) -> None:
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    (tmp_path / "train.py").write_text(OBJECTIVE)
    (tmp_path / "spec.yaml").write_text(textwrap.dedent(f"""\
        metric: loss
        trials: 3
        strategy: random
        seed: 0
        detach: {detach}
        parameters:
          x: {{min: 1.0, max: 2.0}}
        resources: {{cluster: "{address}", per_trial: {{workers: 2}}}}
        """))
    started = [processes.scheduler(port, tmp_path)]
    try:
        started += processes.workers(address, tmp_path, 3)  # the cluster driver takes one's thread
        env = {**os.environ, "HPNB_HOME": str(tmp_path / "home")}
        command = [sys.executable, "-m", "hpnb", "run", "spec.yaml", "--objective", "train.py:train",
                   "--name", "gang"]
        run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        search = hpnb.load("gang", store=tmp_path / "home" / "hpnb.sqlite")
        assert search.wait(patience(180)).state == "COMPLETED", search.message
        trials = search.store.trials(search.experiment_id)
        assert len(trials) == 3 and {t.state for t in trials} == {"COMPLETED"}
        rows = search.store.results(search.experiment_id)
        assert len(rows) == 9  # rank 0's three reports of each trial, none of rank 1's
        assert {(r.metrics["rank"], r.metrics["world"]) for r in rows} == {(0, 2)}
        ranks = [e["data"] for e in search.store.events(search.experiment_id) if e["kind"] == "ranks"]
        assert {len({r["worker"] for r in event["ranks"]}) for event in ranks} == {2}
    finally:
        processes.stop_all(started[::-1])
