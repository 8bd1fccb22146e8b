"""A detached search from a terminal: ``hpnb run --detach`` returns, the commands steer it, a driver
killed with SIGKILL reads INTERRUPTED, and ``hpnb resume NAME --detach`` continues it exactly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from tests.objective_files import checkpointed_train
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

SPEC = textwrap.dedent("""\
    metric: loss
    trials: 16
    parallel: 2
    seed: 0
    parameters:
      x: {min: 1.0, max: 2.0}
    resources: {workers: 2}
    """)

#: a checkpoint every step, so a trial cut by a death goes on from its last one
OBJECTIVE = checkpointed_train(steps=10)


def hpnb_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HPNB_HOME": str(cwd / "home")}
    return subprocess.run([sys.executable, "-m", "hpnb", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240)


def listed_state(project: Path, name: str) -> str:
    listed = hpnb_cli("list", "--json", cwd=project)
    return next(s["state"] for s in json.loads(listed.stdout) if s["name"] == name)


def test_a_detached_search_is_steered_from_the_terminal_and_resumed_after_its_driver_is_killed(
        tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "train.py").write_text(OBJECTIVE)
    started = hpnb_cli("run", "spec.yaml", "--objective", "train.py:train", "--name", "det", "--detach",
                       cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    assert "search 'det' runs in a detached driver" in started.stdout and "its log:" in started.stdout
    search = hpnb.load("det", store=tmp_path / "home" / "hpnb.sqlite")
    store = search.store

    def completed() -> dict[int, float]:
        return {t.trial_id: t.end for t in store.trials(search.experiment_id) if t.state == "COMPLETED"}

    wait_until(lambda: len(completed()) >= 2, timeout=180, message="two trials completed")
    bad = hpnb_cli("stop", "det", "--trial", "99", cwd=tmp_path)
    assert bad.returncode == 2 and "search 'det' has no trial 99" in bad.stderr
    bad = hpnb_cli("extend", "det", "0", cwd=tmp_path)
    assert bad.returncode == 2
    assert "extend: the number of trials to add must be positive (got 0)" in bad.stderr
    extended = hpnb_cli("extend", "det", "2", cwd=tmp_path)
    assert extended.returncode == 0 and "has a budget of 18 trials now (+2)" in extended.stdout

    before = completed()
    results_before = {t: len(store.results(search.experiment_id, trial_id=t)) for t in before}
    pid = int(str(search.record.driver).rpartition(":")[2])
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: listed_state(tmp_path, "det") == "INTERRUPTED", timeout=10,
               message="hpnb list says INTERRUPTED within 10 s")
    gone = hpnb_cli("stop", "det", cwd=tmp_path)
    assert gone.returncode == 2 and "its driver is gone (INTERRUPTED)" in gone.stderr

    resumed = hpnb_cli("resume", "det", "--detach", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert search.wait(patience(300)).state == "COMPLETED", search.message
    trials = store.trials(search.experiment_id)
    assert len(trials) == 18 and {t.state for t in trials} == {"COMPLETED"}
    for trial_id, end in before.items():  # a finished trial is never run again
        assert store.trial(search.experiment_id, trial_id).end == end
        assert len(store.results(search.experiment_id, trial_id=trial_id)) == results_before[trial_id]
    steps = Counter((r.trial_id, r.step) for r in store.results(search.experiment_id))
    assert set(steps.values()) == {1} and len(steps) == 18 * 10  # every step once, none lost
    with Store(tmp_path / "home" / "hpnb.sqlite", readonly=True) as fresh:
        assert fresh.pending_commands(search.experiment_id) == []
