"""What the objective captures travels to each worker once per search, on a real local cluster:
the copy is shared by every trial, fetched again after the workers holding it died, and dropped
when the search ends; what cannot travel is refused by name before anything starts."""

from __future__ import annotations

import os
import signal
import threading
import warnings
from pathlib import Path

import pytest

import hpnb
from hpnb.core.errors import HpnbError
from tests.runner import objectives
from tests.waiting import patience, wait_until

X_SPACE = {"x": {"min": 0.0, "max": 1.0}}


def workers_pids(client) -> set[int]:
    return set(client.run(os.getpid).values())


def unpickled_in(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


@pytest.mark.slow
def test_the_captured_data_is_unpickled_once_per_worker_whatever_the_number_of_trials(store, dask_client,
                                                                                       tmp_path):
    log = tmp_path / "unpickled.txt"
    data = objectives.Unpickled(str(log), 16 * 2**20)
    before = unpickled_in(log)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        search = hpnb.search(objectives.uses_captured(data), name="shared", store=store, client=dask_client,
                             metric="loss", parameters=X_SPACE, trials=16, parallel=2).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    # Dask's warning of data sent with every task is never seen
    assert not [w for w in warned if "large graph" in str(w.message)]
    assert {t.state for t in store.trials(search.experiment_id)} == {"COMPLETED"}
    pids = unpickled_in(log)[len(before):]
    workers = workers_pids(dask_client)
    assert set(pids) <= workers  # the notebook's process never unpickled it
    assert len(pids) == len(set(pids)) <= len(workers)  # each worker once, not once per trial


@pytest.mark.slow
def test_workers_drop_the_copy_when_the_search_ends(store, dask_client):
    held_before = sum(dask_client.run(lambda dask_worker: len(dask_worker.data)).values())
    payload = bytes(4 * 2**20)

    def train(x: float) -> float:
        return x + len(payload) * 0.0

    search = hpnb.search(train, name="dropped", store=store, client=dask_client, metric="loss",
                         parameters=X_SPACE, trials=4, parallel=2).wait(patience(120))
    assert search.state == "COMPLETED", search.message

    def held() -> int:
        return sum(dask_client.run(lambda dask_worker: len(dask_worker.data)).values())

    wait_until(lambda: held() <= held_before, timeout=30)


@pytest.mark.slow
def test_trials_after_every_holder_of_the_copy_died_fetch_it_anew_and_none_fails(store, dask_client):

    def train(x: float, step_sleep: float = 0.05) -> float:
        import time

        for step in range(4):
            hpnb.report(step=step, loss=x + step)
            time.sleep(step_sleep)
        return x

    search = hpnb.search(train, name="refetched", store=store, client=dask_client, metric="loss",
                         parameters=X_SPACE, trials=12, parallel=2, retries=3)
    wait_until(lambda: len([t for t in store.trials(search.experiment_id) if t.state == "COMPLETED"]) >= 2,
               timeout=120)
    for pid in workers_pids(dask_client):  # every worker holding the copy, at once
        os.kill(pid, signal.SIGKILL)
    search.wait(patience(300))
    assert search.state == "COMPLETED", search.message
    trials = store.trials(search.experiment_id)
    assert len(trials) == 12 and {t.state for t in trials} == {"COMPLETED"}


def test_a_captured_value_that_cannot_be_pickled_is_named_before_anything_starts(store):
    connection_lock = threading.Lock()

    def train(x):
        with connection_lock:
            return x

    with pytest.raises(HpnbError, match="it captures 'connection_lock' \\(a lock\\)"):
        hpnb.search(train, name="locked", store=store, metric="loss", parameters=X_SPACE, trials=2)
    assert store.experiments() == []


def test_captured_data_over_the_limit_says_how_to_raise_it_or_load_it_in_the_trial(store):
    table = bytearray(3 * 2**20)

    def train(x):
        return x + len(table) * 0.0

    with pytest.raises(HpnbError) as raised:
        hpnb.search(train, name="big", store=store, metric="loss", parameters=X_SPACE, trials=2,
                    resources={"max_captured": "1Mi"})
    text = str(raised.value)
    assert "3 MiB pickled, more than the 1 MiB" in text
    assert "resources: {max_captured: " in text and "load the data inside the function" in text
    assert store.experiments() == []
    hpnb.api.check_picklable(train, limit=8 * 2**20)  # raised, it passes
