"""A cluster the user started (``dask scheduler`` + ``dask worker`` processes, Dask's defaults):
a lost worker still resumes from the checkpoint, and a stuck thread is written off, not waited for."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import cloudpickle
import pytest
from distributed import Client

import hpnb
from hpnb.jupyter.dashboard import data as dashboard_data
from hpnb.jupyter.dashboard import widgets
from tests.runner import objectives, processes, training_code
from tests.waiting import patience

cloudpickle.register_pickle_by_value(training_code)


@pytest.fixture
def users_client(tmp_path: Path) -> Iterator[Client]:
    """Two single-threaded workers with nannies; ``allowed-failures`` left at Dask's default (3)."""
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path)]
    client = None
    try:
        started += [processes.worker(address, tmp_path, i) for i in range(2)]
        client = Client(address, timeout="30s")
        client.wait_for_workers(2, timeout=60)
        yield client
    finally:
        if client is not None:
            client.close()
        for process in started:  # a worker whose thread is stuck in user code does not end politely
            process.kill()
            process.wait(patience(20))


@pytest.mark.slow
def test_a_lost_worker_resumes_from_the_checkpoint_whatever_allowed_failures_is(store, users_client,
                                                                                 tmp_path):
    objective = partial(objectives.crash_once, marker_dir=str(tmp_path), steps=10, crash_at=5)
    search = hpnb.search(objective, name="users-crash", store=store, client=users_client, metric="loss",
                         strategy={"name": "fixed", "configs": [{"x": 0.0}]}, parameters={"x": [0.0]},
                         retries=2)
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    trial = store.trials(search.experiment_id)[0]
    assert trial.state == "COMPLETED"
    assert trial.retries == 1
    rows = store.results(search.experiment_id)
    assert [r.step for r in rows] == list(range(10))
    assert rows[-1].metrics["started_at"] >= 5  # continued from the checkpoint, not from step 0
    retries = [e for e in store.events(search.experiment_id) if e["kind"] == "retry"]
    assert len(retries) == 1 and "died" in retries[0]["data"]["reason"]


@pytest.mark.slow
def test_a_stuck_thread_on_the_users_cluster_is_named_and_its_slot_written_off(store, users_client):
    hung = hpnb.search(training_code.hangs, name="users-hung", store=store, client=users_client,
                       metric="loss", strategy={"name": "fixed", "configs": [{"x": 0.1}]},
                       parameters={"x": [0.1]}, trial_timeout="1s", retries=0)
    assert hung.wait(patience(30)).state == "FAILED"
    stuck_worker = store.trials(hung.experiment_id)[0].worker
    assert stuck_worker and stuck_worker in hung.message
    assert "stuck thread" in hung.message
    record = store.experiment("users-hung")
    assert "stuck thread" in record.message
    # the cell's dashboard says it too
    header = dashboard_data.header(record, store.trials(record.id), time.time())
    assert stuck_worker in widgets.title_html(header.summary)
    # hpnb does not restart the user's workers: the thread is still there
    assert stuck_worker in users_client.scheduler_info(n_workers=-1)["workers"]

    after = hpnb.search(training_code.returns_numpy, name="users-after", store=store, client=users_client,
                        metric="loss",
                        strategy={"name": "fixed", "configs": [{"x": x} for x in (0.1, 0.2, 0.4)]},
                        parameters={"x": [0.1, 0.2, 0.4]})
    assert after.wait(patience(60)).state == "COMPLETED", after.message
    workers = {t.worker for t in store.trials(after.experiment_id)}
    assert stuck_worker not in workers
