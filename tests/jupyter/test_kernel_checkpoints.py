"""Folder checkpoints, the trial's own context and artifacts from a ``%%hpsearch`` cell, in a real
kernel on hpnb's own local cluster: a worker killed mid-trial, the retry resumes from the folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.jupyter.kernel_session import hpnb_kernel
from tests.waiting import patience

pytestmark = pytest.mark.slow

OBJECTIVE = """
import json, os, signal, time
import hpnb

def train(x):
    trial = hpnb.current_trial()
    folder = hpnb.load_checkpoint()
    start = 0 if folder is None else json.loads((folder / "state.json").read_text())["step"] + 1
    for step in range(start, 3):
        with hpnb.checkpoint_dir(step=step) as saved:
            (saved / "state.json").write_text(json.dumps({"step": step}))
        hpnb.report(step=step, loss=x + step, started_at=start)
        if step == 1 and trial.attempt == 0:
            time.sleep(0.3)  # the report leaves, then the worker dies
            os.kill(os.getpid(), signal.SIGKILL)
    (trial.dir / "notes.txt").write_text(f"{trial.search} trial {trial.trial_id} attempt {trial.attempt}")
    hpnb.artifact(trial.dir / "notes.txt")
    return x + 3
"""

CELL = """%%hpsearch train --name folders
metric: loss
strategy: grid
parameters:
  x: [1.0]
retries: 1
checkpoints: {keep: 1}
resources: {workers: 1}
"""


@pytest.fixture
def kernel(tmp_path: Path):
    with hpnb_kernel(tmp_path, OBJECTIVE) as session:
        yield session


def test_a_cell_search_resumes_from_a_folder_checkpoint_and_keeps_its_artifacts(kernel):
    assert kernel.run("print(hpnb.current_trial())").strip() == "None"  # outside a search
    reply, _ = kernel.execute(CELL)
    assert reply["content"]["status"] == "ok"
    kernel.run(f"folders.wait({patience(120):g})")
    seen = json.loads(kernel.run(
        "rows = folders.history\n"
        "print(json.dumps({'state': folders.state, 'steps': rows['step'].tolist(),\n"
        "                  'started': rows['started_at'].tolist(),\n"
        "                  'artifacts': [a['name'] for a in folders.artifacts(0)],\n"
        "                  'notes': open(folders.artifacts(0)[0]['path']).read()}))"))
    assert seen["state"] == "COMPLETED"
    assert seen["steps"] == [0, 1, 2] and seen["started"][-1] == 2  # the retry went on from step 1
    assert seen["artifacts"] == ["notes.txt"]
    assert seen["notes"] == "folders trial 0 attempt 1"
