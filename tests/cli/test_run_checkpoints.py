"""Folder checkpoints and artifacts from ``hpnb run`` to ``hpnb show --trial`` and ``hpnb export
--artifacts``, as a user runs them: real processes, a real store, a worker killed mid-trial."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from tests.cli.test_run_resume_demo import hpnb_cli

pytestmark = pytest.mark.slow

SPEC = textwrap.dedent("""\
    metric: loss
    strategy: grid
    parameters:
      x: [1.0]
    retries: 1
    checkpoints: {keep: 1}
    resources: {workers: 1}
    """)

OBJECTIVE = textwrap.dedent("""\
    import json, os, signal, time
    import hpnb

    def train(x):
        trial = hpnb.current_trial()
        folder = hpnb.load_checkpoint()
        start = 0 if folder is None else json.loads((folder / "state.json").read_text())["step"] + 1
        for step in range(start, 3):
            with hpnb.checkpoint_dir(step=step) as saved:
                (saved / "state.json").write_text(json.dumps({"step": step}))
            hpnb.report(step=step, loss=x + step)
            if step == 1 and trial.attempt == 0:
                time.sleep(0.3)  # the report leaves, then the worker dies
                os.kill(os.getpid(), signal.SIGKILL)
        (trial.dir / "notes.txt").write_text(f"attempt {trial.attempt} from step {start}")
        hpnb.artifact(trial.dir / "notes.txt")
        return x + 3
    """)


def test_run_resumes_a_folder_checkpoint_and_export_copies_the_artifacts(tmp_path):
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "train.py").write_text(OBJECTIVE)
    done = hpnb_cli("run", "spec.yaml", "--objective", "train:train", "--name", "folders", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "search 'folders': COMPLETED" in done.stdout
    shown = hpnb_cli("show", "folders", "--trial", "0", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "artifacts" in shown.stdout and "notes.txt" in shown.stdout
    exported = hpnb_cli("export", "folders", "-o", "trials.csv", "--artifacts", "out", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    # the retry loaded the folder of step 1 and its dir held on
    assert (tmp_path / "out" / "trial-0" / "notes.txt").read_text() == "attempt 1 from step 2"
    assert pd.read_csv(tmp_path / "trials.csv")["artifacts"].tolist() == ["trial-0/notes.txt"]
