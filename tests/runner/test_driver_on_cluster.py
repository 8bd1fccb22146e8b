"""``detach: cluster``: the driver runs as a task on a worker of the search's own Dask cluster
(scheduler and worker processes on 127.0.0.1). The process that started it exits at once, the
worker running the driver is killed once, and the search still completes with every step once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import hpnb
from tests.objective_files import checkpointed_train
from tests.runner import processes
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

#: a checkpoint every step, so a trial cut by a death goes on from its last one
OBJECTIVE = checkpointed_train(steps=8)


def test_a_driver_on_the_cluster_outlives_its_starter_and_the_worker_that_ran_it(tmp_path: Path) -> None:
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    (tmp_path / "train.py").write_text(OBJECTIVE)
    (tmp_path / "spec.yaml").write_text(textwrap.dedent(f"""\
        metric: loss
        trials: 10
        parallel: 2
        seed: 0
        detach: cluster
        parameters:
          x: {{min: 1.0, max: 2.0}}
        resources: {{cluster: "{address}"}}
        """))
    store_path = tmp_path / "home" / "hpnb.sqlite"
    started = [processes.scheduler(port, tmp_path)]
    try:
        started += processes.workers(address, tmp_path, 3)
        env = {**os.environ, "HPNB_HOME": str(tmp_path / "home")}
        command = [sys.executable, "-m", "hpnb", "run", "spec.yaml", "--objective", "train.py:train",
                   "--name", "oncluster"]
        run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert f"runs in a detached driver (a worker of {address})" in run.stdout
        search = hpnb.load("oncluster", store=store_path)
        wait_until(lambda: search.store.result_count(search.experiment_id) >= 10, timeout=120,
                   message="trials report with their driver on a worker")
        driver = str(search.record.driver)
        os.kill(int(driver.rpartition(":")[2]), signal.SIGKILL)  # the worker process running the driver
        wait_until(lambda: search.record.driver not in (None, driver) and search.state == "RUNNING",
                   timeout=120, message="the driver started again on a worker")
        assert search.wait(patience(300)).state == "COMPLETED", search.message
        trials = search.store.trials(search.experiment_id)
        assert len(trials) == 10 and {t.state for t in trials} == {"COMPLETED"}
        steps = Counter((r.trial_id, r.step) for r in search.store.results(search.experiment_id))
        assert set(steps.values()) == {1} and len(steps) == 10 * 8  # none lost, none stored twice
        assert "cluster" in hpnb.load("oncluster", store=store_path).spec.to_dict()["detach"]
    finally:
        processes.stop_all(started[::-1])


def test_a_driver_on_a_cluster_this_process_starts_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(hpnb.HpnbError, match="detach: cluster needs a Dask cluster that outlives this"):
        hpnb.search(lambda x: x, name="refused", store=tmp_path / "hpnb.sqlite", metric="loss", trials=2,
                    parameters={"x": {"min": 0.0, "max": 1.0}}, detach="cluster")
    assert not (tmp_path / "hpnb.sqlite").exists()  # nothing recorded, nothing started
