"""Searches on a cluster object named in the notebook (``resources: {cluster: NAME}``, a
``LocalCluster`` here as a Gateway cluster there) share one client of it: none leaks per search,
and it closes with the cluster."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import LocalCluster

import hpnb
from hpnb.cluster.connect import cluster_client
from hpnb.core.store import Store
from tests.waiting import patience


def square(x: float) -> float:
    return x * x


def users_clients(cluster: LocalCluster) -> int:
    """Clients connected to the cluster's scheduler, but the one Dask keeps for itself."""
    return len([name for name in cluster.scheduler.clients if name != "fire-and-forget"])


@pytest.mark.slow  # starts a Dask cluster
def test_two_searches_on_one_cluster_object_share_one_client_closed_with_the_cluster(tmp_path: Path):
    with Store(tmp_path / "hpnb.sqlite") as store, LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        for name in ("first", "second"):
            search = hpnb.search(square, store=store, name=name, metric="x", trials=4,
                                 parameters={"x": {"min": 0.0, "max": 1.0}},
                                 resources={"cluster": "mine"}, namespace={"mine": cluster},
                                 ).wait(patience(120))
            assert search.state == "COMPLETED", search.message
            assert users_clients(cluster) == 1  # the second search made none of its own
        client = cluster_client(cluster)  # the one the searches ran on
        assert client.status == "running" and users_clients(cluster) == 1
        cluster.close()
        assert client.status == "closed"
