"""Per-trial resources on real Dask clusters: fake GPUs handed out by a local cluster (each trial
sees its own ids through CUDA_VISIBLE_DEVICES), trials bounded by what workers advertise whatever
``parallel`` says, and one clear error for a trial no worker can hold."""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from distributed import Client, LocalCluster

import hpnb
from hpnb.cluster.cluster_errors import ClusterError
from hpnb.cluster.connect import LocalShape, close_client_and_cluster, start_local
from hpnb.core.spec.resources import parse_resources
from hpnb.core.store import Store
from tests.waiting import patience

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def holds_devices(x: float, log: str, seconds: float = 0.6) -> float:
    """Notes the devices this trial's process sees, and when it held them."""
    start = time.time()
    time.sleep(seconds)
    record = {"x": x, "devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "pid": os.getpid(),
              "start": start, "end": time.time()}
    with Path(log).open("a") as file:
        file.write(json.dumps(record) + "\n")
    return x


def held(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def most_at_once(records: list[dict[str, Any]]) -> int:
    edges = sorted([(r["start"], 1) for r in records] + [(r["end"], -1) for r in records])
    return max(itertools.accumulate(step for _, step in edges))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


@pytest.fixture
def no_gpus_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine has no GPU: the fake ids of ``resources.gpus`` are taken as they are."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no nvidia-smi


def local_search(resources: dict[str, Any], store: Store, log: Path,
                 trials: int) -> tuple[hpnb.Search, str | None]:
    """A search on the local cluster hpnb starts for ``resources`` (closed afterwards), with more
    trials allowed at once (``parallel``) than its resources hold; and what its summary said
    limited it while it ran."""
    client = start_local(LocalShape.from_resources(parse_resources(resources)))
    try:
        search = hpnb.search(partial(holds_devices, log=str(log)), store=store, client=client, name="gpus",
                             metric="x", resources=resources, parallel=16, trials=trials,
                             parameters={"x": {"min": 0.0, "max": 1.0}})
        limited_by = search.summary.limited_by
        return search.wait(patience(120)), limited_by
    finally:
        close_client_and_cluster(client)


@pytest.mark.slow
@pytest.mark.parametrize(("gpus", "share", "at_once"), [((0, 1, 2, 3), 1, 4), ((0, 1), 0.5, 4),
                                                       ((0, 1, 2, 3), 2, 2)])
def test_each_trial_sees_only_its_gpus_and_no_more_run_than_the_gpus_hold(store, tmp_path, no_gpus_found,
                                                                          gpus, share, at_once):
    log = tmp_path / "held.log"
    search, limited_by = local_search({"per_trial": {"gpu": share}, "gpus": list(gpus)}, store, log,
                                      trials=3 * at_once)
    assert search.state == "COMPLETED", search.message
    records = held(log)
    assert len(records) == 3 * at_once
    per_trial = max(1, int(share))
    for record in records:  # each saw exactly its own devices, among those given
        devices = record["devices"].split(",")
        assert len(devices) == per_trial and set(devices) <= {str(g) for g in gpus}, record
    assert most_at_once(records) == at_once  # parallel: 16 asked for more
    for device in map(str, gpus):  # one device is never held by more trials than its share allows
        on_it = [r for r in records if device in r["devices"].split(",")]
        assert most_at_once(on_it) <= max(1, round(1 / share)), device
    slots = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "slots"]
    assert slots and slots[0] == {"slots": at_once, "limited_by": "gpu"}
    assert limited_by == "gpu"  # the summary's "4 running, limited by gpu"


@pytest.mark.slow
def test_a_custom_resource_on_a_users_cluster_bounds_the_trials_at_once(store, tmp_path):
    log = tmp_path / "held.log"
    with LocalCluster(n_workers=2, threads_per_worker=3, resources={"licence": 1}, processes=True,
                      dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
        search = hpnb.search(partial(holds_devices, log=str(log), seconds=0.3), store=store, client=client,
                             name="licence", metric="x", resources={"per_trial": {"licence": 1}}, parallel=6,
                             trials=6, parameters={"x": {"min": 0.0, "max": 1.0}}).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    assert most_at_once(held(log)) == 2  # one licence on each of 2 workers, though 6 threads


@pytest.mark.slow
@pytest.mark.parametrize(("per_trial", "words"), [
    ({"gpu": 2}, ["resources.per_trial.gpu", "asks 2", "the most a worker has is 1 gpu"]),
    ({"memory": "1Ti"}, ["resources.per_trial.memory", "1Ti", "none of them advertises it"]),
])
def test_a_trial_no_worker_can_hold_is_one_clear_error_before_anything_runs(store, tmp_path, per_trial,
                                                                           words):
    log = tmp_path / "held.log"
    with LocalCluster(n_workers=1, threads_per_worker=1, resources={"gpu": 1}, processes=False,
                      dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
        with pytest.raises(ClusterError) as raised:
            hpnb.search(partial(holds_devices, log=str(log)), store=store, client=client, name="too-big",
                        metric="x", resources={"per_trial": per_trial}, trials=2,
                        parameters={"x": {"min": 0.0, "max": 1.0}})
    assert all(word in str(raised.value) for word in words), str(raised.value)
    assert not log.exists()


@pytest.mark.slow
def test_a_cluster_without_workers_at_the_start_fails_the_search_once_a_worker_that_cannot_hold_a_trial_joins(
        store, tmp_path):
    # an adaptive cluster (Dask Gateway, dask-jobqueue) may have no worker when the search starts:
    # nothing to check then, and the first workers that join say whether a trial fits
    log = tmp_path / "held.log"
    with LocalCluster(n_workers=0, threads_per_worker=1, resources={"gpu": 1}, processes=False,
                      dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
        search = hpnb.search(partial(holds_devices, log=str(log)), store=store, client=client, name="later",
                             metric="x", resources={"per_trial": {"gpu": 2}}, trials=2,
                             parameters={"x": {"min": 0.0, "max": 1.0}})
        cluster.scale(1)
        search.wait(patience(120))
    assert search.state == "FAILED"
    assert all(word in (search.message or "") for word in
               ["resources.per_trial.gpu", "asks 2", "the most a worker has is 1 gpu"]), search.message
    assert not log.exists()


@pytest.mark.parametrize(("resources", "words"), [
    ({"per_trial": {"gpu": 8}, "gpus": [0, 1, 2, 3]}, ["resources.per_trial.gpu", "asks 8 GPUs", "offers 4"]),
    ({"per_trial": {"gpu": 1}}, ["resources.per_trial.gpu", "has none", "resources.gpus"]),
    ({"per_trial": {"cpu": 64}}, ["resources.per_trial.cpu", "asks 64", "cores"]),
    ({"per_trial": {"licence": 1}}, ["resources.per_trial.licence", "local cluster advertises cpu, memory"]),
])
def test_a_local_cluster_refuses_what_this_machine_cannot_give(no_gpus_found, resources, words):
    with pytest.raises(ClusterError) as raised:
        LocalShape.from_resources(parse_resources(resources))
    assert all(word in str(raised.value) for word in words), str(raised.value)


def test_gpu_ids_this_machine_does_not_have_are_refused(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    with pytest.raises(ClusterError, match=r"resources.gpus: no GPU 2, 3 on this machine \(it has 0, 1\)"):
        LocalShape.from_resources(parse_resources({"per_trial": {"gpu": 1}, "gpus": [0, 1, 2, 3]}))
