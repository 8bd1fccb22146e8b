"""``resources`` on real clusters: memory limits, requests, adaptive workers, workers joining and leaving."""

from __future__ import annotations

import signal
from functools import partial

import pytest

import hpnb
from hpnb.cluster.cluster_errors import ClusterError
from hpnb.cluster.connect import LocalShape, close_client_and_cluster, default_local_workers, start_local
from tests.runner import objectives, processes
from tests.waiting import patience

X = {"x": {"min": 0.0, "max": 1.0}}


@pytest.mark.slow
def test_a_trial_over_the_memory_limit_fails_with_that_reason(store):
    client = start_local(LocalShape(1, 1, 300 * 2**20))
    try:
        search = hpnb.search(objectives.hog_memory, name="hog", store=store, client=client, metric="loss",
                             trials=1, parameters={"x": [1.0]}, retries=1).wait(patience(120))
    finally:
        close_client_and_cluster(client)
    trial = store.trials(search.experiment_id)[0]
    assert trial.state == "FAILED"
    assert trial.error.startswith("memory limit")
    assert "resources.limits.memory" in trial.error
    assert trial.retries == 1


def test_requests_larger_than_the_machine_are_refused_before_anything_starts(store):
    with pytest.raises(ClusterError, match=r"resources\.requests\.cpu: .* more than this machine's"):
        hpnb.search(objectives.with_config, name="big", store=store, metric="loss", parameters=X,
                    resources={"workers": 2, "requests": {"cpu": "4096"}, "limits": {"cpu": "4096"}})
    with pytest.raises(ClusterError, match=r"resources\.requests\.memory"):
        hpnb.search(objectives.with_config, name="big", store=store, metric="loss", parameters=X,
                    resources={"workers": 1, "requests": {"memory": "64Ti"}})
    assert store.experiments() == []


def test_a_trial_wider_than_the_default_local_cluster_is_refused_with_both_numbers(store):
    # (with resources.workers or adapt given, the spec itself refuses it: tests/core/spec)
    with pytest.raises(ClusterError) as info:
        hpnb.search(objectives.with_config, name="wide", store=store, metric="loss", parameters=X,
                    resources={"per_trial": {"workers": 9}})
    assert str(info.value).startswith("resources.per_trial.workers: a trial spans 9 workers, but the local "
                                      f"cluster has {default_local_workers()}")
    assert store.experiments() == []


@pytest.mark.slow
def test_an_adaptive_local_cluster_grows_with_parallel(store):
    client = start_local(LocalShape(1, 1, "auto", adapt=(1, 3)))
    try:
        assert len(client.scheduler_info()["workers"]) == 1
        # trials long enough that Dask's adaptive target (queued work over 5 s) asks for more workers
        search = hpnb.search(partial(objectives.durations, duration=2.5), name="adapt", store=store,
                             client=client, metric="loss", trials=12, parameters=X,
                             resources={"adapt": {"minimum": 1, "maximum": 3}}).wait(patience(180))
        assert search.state == "COMPLETED"
        trials = store.trials(search.experiment_id)
        assert store.experiment("adapt").parallel in (None, 3)
        assert len({t.worker for t in trials}) >= 2  # workers were added while it ran
    finally:
        close_client_and_cluster(client)


@pytest.mark.slow
def test_workers_joining_and_leaving_mid_search_lose_nothing(store, tmp_path):
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path), processes.worker(address, tmp_path, 0)]
    try:
        search = hpnb.search(partial(objectives.steady, steps=10, pause=0.1), name="elastic", store=store,
                             metric="loss", trials=16, parameters=X, resources={"cluster": address})
        processes.wait_for(lambda: len(store.trials(search.experiment_id)) >= 2)
        started.append(processes.worker(address, tmp_path, 1))  # joins mid-search
        workers_seen = lambda: {t.worker for t in store.trials(search.experiment_id) if t.worker}  # noqa: E731
        processes.wait_for(lambda: len(workers_seen()) >= 2)
        started.append(processes.worker(address, tmp_path, 2))
        processes.wait_for(lambda: "Registered to" in (tmp_path / "worker2.log").read_text())  # it joined
        started[1].send_signal(signal.SIGTERM)  # leaves politely, mid-trial
        processes.wait_for(lambda: started[1].poll() is not None)
        started[2].send_signal(signal.SIGKILL)  # and one vanishes
        search.wait(patience(180))
        assert search.state == "COMPLETED", search.message
        trials = store.trials(search.experiment_id)
        assert len(trials) == 16 and {t.state for t in trials} == {"COMPLETED"}
        for trial in trials:
            rows = store.results(search.experiment_id, trial_id=trial.trial_id)
            assert [r.step for r in rows] == list(range(10))  # every step once, none lost
    finally:
        processes.stop_all(started[::-1])
