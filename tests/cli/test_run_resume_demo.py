"""``hpnb run``, ``hpnb resume`` and ``hpnb demo`` as a user runs them: real processes, a real store."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hpnb.core.store import Store

SPEC = textwrap.dedent("""\
    metric: loss
    mode: min
    strategy: random
    trials: 6
    seed: 0
    parameters:
      x: {min: 0.0, max: 1.0}
      layers: {type: int, min: 1, max: 3}
    resources: {workers: 2}
    """)

OBJECTIVE = textwrap.dedent("""\
    import hpnb

    def train(x, layers):
        for step in range(3):
            hpnb.report(step=step, loss=(x - 0.3) ** 2 + layers + 1 / (step + 1))
        return (x - 0.3) ** 2 + layers
    """)


def hpnb_cli(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HPNB_HOME": str(cwd / "home")}
    return subprocess.run([sys.executable, "-m", "hpnb", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "train.py").write_text(OBJECTIVE)
    return tmp_path


@pytest.mark.slow
def test_run_prints_progress_and_the_leaderboard(project):
    done = hpnb_cli("run", "spec.yaml", "--objective", "train:train", "--name", "cli", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "search 'cli': COMPLETED" in done.stdout
    assert "Leaderboard (top 6 of 6" in done.stdout
    lines = done.stdout.splitlines()
    final = lines[lines.index("search 'cli': COMPLETED") - 1]
    assert final.split()[1] == "6/6" and "running 0  failed 0  stopped 0  best loss " in final
    with Store(project / "home" / "hpnb.sqlite", readonly=True) as store:
        record = store.experiment("cli")
        trials = store.trials(record.id)
    assert len(trials) == 6 and {t.state for t in trials} == {"COMPLETED"}


@pytest.mark.slow
def test_an_objective_given_as_a_file_path_runs_on_the_workers(project):
    done = hpnb_cli("run", "spec.yaml", "--objective", "train.py:train", "--name", "by-path", "--trials", "3",
                    cwd=project)
    assert done.returncode == 0, done.stderr
    assert "search 'by-path': COMPLETED" in done.stdout


@pytest.mark.slow
def test_resume_extends_a_finished_search(project):
    first = hpnb_cli("run", "spec.yaml", "--objective", "train:train", "--name", "ext", cwd=project)
    assert first.returncode == 0, first.stderr
    done = hpnb_cli("resume", "ext", "--objective", "train:train", "--extend", "2", cwd=project)
    assert done.returncode == 0, done.stderr
    with Store(project / "home" / "hpnb.sqlite", readonly=True) as store:
        record = store.experiment("ext")
        assert record.budget == 8 and len(store.trials(record.id)) == 8


@pytest.mark.parametrize(("args", "message"), [
    (["run", "spec.yaml"], "the following arguments are required: --objective"),
    (["run", "spec.yaml", "--objective", "train"], "expected MODULE:FUNCTION"),
    (["run", "spec.yaml", "--objective", "nosuchmodule:train"], "cannot import module 'nosuchmodule'"),
    (["run", "spec.yaml", "--objective", "train:nosuch"], "has no function 'nosuch'"),
    (["run", "missing.yaml", "--objective", "train:train"], "missing.yaml: no such file"),
    (["resume", "nosuch", "--objective", "train:train"], "nosuch"),
    (["run", "spec.yaml", "--objective", "train:train", "--trials", "0"], "trials"),
])
def test_bad_arguments_exit_2_with_a_clear_message(project, args, message):
    done = hpnb_cli(*args, cwd=project, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_demo_runs_a_real_search(project):
    done = hpnb_cli("demo", "--trials", "6", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "search 'demo': COMPLETED" in done.stdout
    assert "val_loss" in done.stdout
    with Store(project / "home" / "hpnb.sqlite", readonly=True) as store:
        record = store.experiment("demo")
        assert len(store.trials(record.id)) == 6
        assert store.result_count(record.id) > 6  # every epoch was reported
