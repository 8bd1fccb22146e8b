"""A search whose cluster lost every worker says so where the user looks, stops INTERRUPTED after
``resources.wait_for_workers``, and resumes once workers are back; hpnb's own local cluster gets
its workers back by itself. Real scheduler and worker processes, killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from distributed import Client

import hpnb
from hpnb.cli import main as cli_main
from hpnb.core.summary import store_summaries
from tests.runner import objectives, processes
from tests.waiting import patience, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

X_SPACE = {"x": {"min": 0.0, "max": 1.0}}


def bare_worker(address: str, log_dir: Path, index: int):
    """A worker process with no nanny: killed, it stays dead."""
    return processes.spawn(["dask", "worker", address, "--nthreads", "1", "--no-dashboard", "--no-nanny",
                            "--name", f"bare{index}"], log_dir / f"bare{index}.log")


@pytest.fixture
def bare_cluster(tmp_path: Path) -> Iterator[tuple[Client, str, list]]:
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path)]
    client = None
    try:
        workers = [bare_worker(address, tmp_path, i) for i in range(2)]
        started += workers
        client = Client(address, timeout="30s")
        client.wait_for_workers(2, timeout=60)
        yield client, address, started
    finally:
        if client is not None:
            client.close()
        for process in started:
            process.kill()
            process.wait(patience(20))


def message_of(store, name: str) -> str:
    summary = next(s for s in store_summaries(store, time.time()) if s.name == name)
    return summary.message or ""


def test_a_cluster_without_workers_is_said_then_interrupts_the_search_which_resumes_later(
        store, bare_cluster, tmp_path, capsys):
    client, address, started = bare_cluster
    objective = partial(objectives.sleepy, duration=1.0)
    search = hpnb.search(objective, name="orphaned", store=store, client=client, metric="loss",
                         parameters=X_SPACE, trials=8, parallel=2, retries=3,
                         resources={"wait_for_workers": "20s"})
    wait_until(lambda: any(t.state == "COMPLETED" for t in store.trials(search.experiment_id)), timeout=120)
    for worker in started[1:]:
        worker.kill()
    killed = time.monotonic()
    said = wait_until(lambda: "waiting for workers: none since" in message_of(store, "orphaned"), timeout=60)
    assert said and time.monotonic() - killed <= 30
    assert "waiting for workers: none since" in (search.message or "")  # the notebook's handle too
    assert cli_main(["show", "orphaned", "--store", str(store.path)]) == 0
    assert "waiting for workers: none since" in capsys.readouterr().out

    assert search.wait(patience(120)).state == "INTERRUPTED"
    assert "resources.wait_for_workers" in search.message and "waiting for workers" in search.message
    trials = store.trials(search.experiment_id)
    assert "FAILED" not in {t.state for t in trials}

    started += [bare_worker(address, tmp_path, i) for i in range(2, 4)]
    client.wait_for_workers(2, timeout=60)
    resumed = hpnb.resume("orphaned", objective, store=store, client=client).wait(patience(300))
    assert resumed.state == "COMPLETED", resumed.message
    trials = store.trials(resumed.experiment_id)
    assert len(trials) == 8 and {t.state for t in trials} == {"COMPLETED"}
    assert "waiting for workers" not in (message_of(store, "orphaned"))


def test_hpnbs_own_local_cluster_gets_back_every_worker_killed_and_every_nanny_closed(store):
    from hpnb.cluster.connect import local_client
    from hpnb.core.spec.resources import Resources

    client = local_client(Resources(workers=3))
    client.wait_for_workers(3, timeout=60)
    for pid in client.run(os.getpid).values():  # every worker process at once
        os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    wait_until(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == 3, timeout=60)
    assert time.monotonic() - killed <= 30
    cluster = client.cluster
    for nanny in list(cluster.workers.values()):  # nannies that gave up, as Dask's do after repeated deaths
        cluster.sync(nanny.close)
    closed = time.monotonic()
    wait_until(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == 3, timeout=60)
    assert time.monotonic() - closed <= 30
    search = hpnb.search(objectives.with_config, name="healed", store=store, client=client, metric="loss",
                         parameters=X_SPACE, trials=6).wait(patience(120))
    assert search.state == "COMPLETED", search.message
