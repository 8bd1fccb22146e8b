"""A team's search in real kernels: a notebook starts it with a PostgreSQL store and its driver on
the cluster (``dask scheduler`` and ``dask worker`` processes on 127.0.0.1), then the notebook's
kernel dies and so does the worker running the driver; the search completes, and a teammate's
notebook (another ``HPNB_HOME``, the same store URL) attaches to it and steers it."""

from __future__ import annotations

import os
import signal
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from tests.jupyter.kernel_session import KernelSession
from tests.jupyter.test_kernel_detached import _kill_with_its_group, attach_and_extend
from tests.postgres import TestServer
from tests.runner import processes
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

STEPS = 8
#: defined in the notebook (it travels by value), with a checkpoint every step so that a trial cut
#: by its worker's death goes on from its last one
NOTEBOOK = textwrap.dedent(f"""\
    import time
    import hpnb

    def train(x):
        state = hpnb.load_checkpoint() or {{"step": 0}}
        for step in range(state["step"] + 1, {STEPS + 1}):
            time.sleep(0.3)
            hpnb.report(step=step, loss=x / step, checkpoint={{"step": step}})
        return {{"loss": x / {STEPS}}}
    """)


def _cell(address: str) -> str:
    return textwrap.dedent(f"""\
        %%hpsearch train --name team --detach cluster
        metric: loss
        trials: 10
        parallel: 2
        seed: 0
        parameters:
          x: {{min: 1.0, max: 2.0}}
        resources: {{cluster: "{address}"}}
        """)


def test_a_team_search_outlives_its_notebook_and_the_driver_s_worker_and_a_teammate_steers_it(
        postgres_server: TestServer, tmp_path: Path) -> None:
    url = postgres_server.create_database()
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path)]
    try:
        started += processes.workers(address, tmp_path, 3)
        alice = KernelSession(tmp_path / "alice", env={"HPNB_STORE": url})
        alice.run("%load_ext hpnb.jupyter\n" + NOTEBOOK)
        reply, _ = alice.execute(_cell(address))
        assert reply["content"]["status"] == "ok"
        search = hpnb.load("team", store=url)
        # the folder a server store keeps checkpoints in by default is the starter's: written into
        # the search, so that the driver on a worker and the teammate's notebook use it too
        assert search.spec.checkpoints.store.startswith(str(tmp_path / "alice" / "servers"))
        with Store(url, readonly=True) as viewer:
            wait_until(lambda: viewer.result_count(search.experiment_id) >= 6 or search.state != "RUNNING",
                       timeout=120, message="trials report with their driver on a worker")
        assert search.state == "RUNNING", search.message
        _kill_with_its_group(alice)  # the kernel that started it: the notebook's machine may go
        driver = str(search.record.driver)
        os.kill(int(driver.rpartition(":")[2]), signal.SIGKILL)  # the worker process running the driver
        wait_until(lambda: search.record.driver not in (None, driver) and search.state == "RUNNING",
                   timeout=120, message="the driver started again on another worker")

        bob = KernelSession(tmp_path / "bob", env={"HPNB_STORE": url})
        try:
            attach_and_extend(bob, "team", budget=12)
        finally:
            bob.close()
        assert not (tmp_path / "bob" / "hpnb.sqlite").exists()  # the teammate used the team's store

        assert search.wait(patience(300)).state == "COMPLETED", search.message
        trials = search.store.trials(search.experiment_id)
        assert len(trials) == 12 and {t.state for t in trials} == {"COMPLETED"}
        steps = Counter((r.trial_id, r.step) for r in search.store.results(search.experiment_id))
        assert set(steps.values()) == {1} and len(steps) == 12 * STEPS  # none lost, none stored twice
        assert [e["kind"] for e in search.store.events(search.experiment_id)].count("extend") == 1
    finally:
        processes.stop_all(started[::-1])
