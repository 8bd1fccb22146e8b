"""``detach: cluster`` with ``cluster: kubernetes``: the search's driver runs on a worker of a
DaskCluster started to outlive the process that starts it, and the operator deletes the cluster
once the search has ended (``idleTimeout``).

No Kubernetes API server runs here. Everything up to the boundary is real: the spec, the manifest
(checked against the operator's own CRD schema in ``test_kubernetes_manifest.py``), the credential
and API checks (kr8s against a local stand-in for the API server), and past it the Dask side: the
"cluster" dask-kubernetes would return is a real ``dask scheduler`` with ``dask worker`` processes
on 127.0.0.1, which runs the driver's task and the trials.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import psutil
import pytest
from distributed.core import Status

import hpnb
from hpnb.cluster.cluster_errors import KubeConfigError
from hpnb.cluster.kubernetes import DRIVER_IDLE_TIMEOUT, KubernetesBackend
from hpnb.core.errors import SpecError
from hpnb.core.spec.resources import parse_resources
from tests.cluster.test_kubernetes_backend import WITH_OPERATOR, api_server, kube_resources, no_credentials
from tests.runner import objectives, processes
from tests.waiting import patience

__all__ = ["api_server", "no_credentials"]  # fixtures used here


def test_a_driver_cluster_is_kept_until_the_operator_sees_it_idle() -> None:
    kept = KubernetesBackend(kube_resources(), "hpnb-demo", outlives_starter=True)
    assert kept.manifest["spec"]["idleTimeout"] == DRIVER_IDLE_TIMEOUT
    chosen = KubernetesBackend(kube_resources(kubernetes={"idle_timeout": 120}), "hpnb-demo",
                               outlives_starter=True)
    assert chosen.manifest["spec"]["idleTimeout"] == 120
    # keep: true leaves it running, as for any search; a cluster of the notebook's driver ends with it
    assert KubernetesBackend(kube_resources(kubernetes={"keep": True}), "hpnb-demo",
                             outlives_starter=True).manifest["spec"]["idleTimeout"] == 0
    assert KubernetesBackend(kube_resources(), "hpnb-demo").manifest["spec"]["idleTimeout"] == 0


@pytest.mark.parametrize("value", [-1, 2.5, "soon"])
def test_a_bad_idle_timeout_names_the_field(value: Any) -> None:
    with pytest.raises(SpecError, match=r"resources\.kubernetes\.idle_timeout"):
        parse_resources({"cluster": "kubernetes", "kubernetes": {"idle_timeout": value}})


def test_without_credentials_nothing_is_recorded_or_started(no_credentials: Path) -> None:
    store = no_credentials / "hpnb.sqlite"
    with pytest.raises(KubeConfigError, match="kubeconfig"):
        hpnb.search(objectives.quadratic, name="nocreds", store=store, metric="loss", trials=2,
                    parameters={"x": {"min": 0.0, "max": 1.0}}, detach="cluster",
                    resources={"cluster": "kubernetes", "workers": 2})
    assert not store.exists()


class ClusterPastTheBoundary:
    """What dask-kubernetes' ``KubeCluster`` gives back once the operator made the pods: here a
    real scheduler on 127.0.0.1. Records how hpnb asked for it and whether it was closed."""

    address: ClassVar[str] = ""
    made: ClassVar[list[ClusterPastTheBoundary]] = []

    def __init__(self, **asked: Any) -> None:
        self.asked = asked
        self.shutdown_on_close = asked["shutdown_on_close"]
        self.scheduler_address = self.address
        self.status = Status.running
        self.dashboard_link = ""
        self.closed = False
        self.made.append(self)

    def close(self) -> None:
        self.closed = True


@pytest.mark.slow
@pytest.mark.parametrize("api_server", [WITH_OPERATOR], indirect=True)
def test_the_driver_runs_on_a_worker_of_the_search_s_kubernetes_cluster(
        api_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dask_kubernetes.operator

    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path)]
    in_cluster: list[tuple[str, str]] = []

    def reached_at(name: str, namespace: str) -> str:  # a pod's address for the scheduler: ours here
        in_cluster.append((name, namespace))
        return address

    monkeypatch.setattr(ClusterPastTheBoundary, "address", address)
    monkeypatch.setattr(ClusterPastTheBoundary, "made", [])
    monkeypatch.setattr(dask_kubernetes.operator, "KubeCluster", ClusterPastTheBoundary)
    monkeypatch.setattr("hpnb.cluster.kubernetes.scheduler_address_in_cluster", reached_at)
    try:
        started += processes.workers(address, tmp_path, 2)
        search = hpnb.search(objectives.quadratic, name="on-kube", store=tmp_path / "hpnb.sqlite",
                             metric="loss", trials=6, parallel=2, seed=0, detach="cluster",
                             parameters={"x": {"min": 0.0, "max": 1.0}},
                             resources={"cluster": "kubernetes", "workers": 2})
        [cluster] = ClusterPastTheBoundary.made
        assert cluster.asked["shutdown_on_close"] is False  # the starter's exit leaves it to the driver
        assert cluster.asked["custom_cluster_spec"]["spec"]["idleTimeout"] == DRIVER_IDLE_TIMEOUT
        assert cluster.asked["custom_cluster_spec"]["metadata"]["name"] == "hpnb-on-kube"
        assert cluster.closed  # this process let go of it once the scheduler held the driver's task
        assert in_cluster == [("hpnb-on-kube", "default")]  # the kubeconfig context's namespace
        assert search.wait(patience(120)).state == "COMPLETED", search.message
        driver = psutil.Process(int(str(search.record.driver).rpartition(":")[2]))
        assert driver.ppid() in {nanny.pid for nanny in started[1:]}  # a worker process ran it
        trials = search.store.trials(search.experiment_id)
        assert len(trials) == 6 and {t.state for t in trials} == {"COMPLETED"}
        steps = Counter((r.trial_id, r.step) for r in search.store.results(search.experiment_id))
        assert set(steps.values()) == {1}
    finally:
        processes.stop_all(started[::-1])
