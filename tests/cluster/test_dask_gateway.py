"""A search on a real Dask Gateway: dask-gateway-server with its local backend, started on
127.0.0.1 by the test, a cluster asked of it as a JupyterHub user would, passed as ``client=``;
the search survives the loss of a worker."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from distributed.comm.core import CommClosedError

import hpnb
from hpnb.core.store import Store
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # a gateway server, its proxy, schedulers and workers

cloudpickle.register_pickle_by_value(sys.modules[__name__])

CONFIG = """
c.Gateway.address = "127.0.0.1:{api}"
c.Proxy.address = "127.0.0.1:{proxy}"
c.Gateway.backend_class = "dask_gateway_server.backends.local.UnsafeLocalBackend"
c.Gateway.authenticator_class = "dask_gateway_server.auth.SimpleAuthenticator"
c.ClusterConfig.scheduler_cmd = ["dask", "scheduler"]
c.ClusterConfig.worker_cmd = ["dask", "worker"]
c.ClusterConfig.worker_cores = 1
c.ClusterConfig.worker_threads = 1
c.ClusterConfig.worker_memory = "1 G"
c.ClusterConfig.idle_timeout = 0
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Any]:
    """A running gateway server on loopback, and a client of it for one user."""
    from dask_gateway import BasicAuth, Gateway

    proxy = free_port()
    (tmp_path / "config.py").write_text(CONFIG.format(api=free_port(), proxy=proxy))
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "dask_gateway_server", "-f", "config.py"],
                              cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    client = Gateway(f"http://127.0.0.1:{proxy}", auth=BasicAuth("hpnb-user", "password"))
    try:
        wait_until(lambda: _answers(client), message="the gateway server answers")
        yield client
    finally:
        client.close()
        server.terminate()
        server.wait(30)
        log.close()


def _answers(client: Any) -> bool:
    try:
        client.list_clusters()
    except Exception:
        return False
    return True


def half_second(x: float) -> float:
    """A trial that reports a few steps, so that a lost worker's trial runs again from its start."""
    for step in range(1, 4):
        time.sleep(0.2)
        hpnb.report(step=step, loss=x / step)
    return x / 3


def test_a_search_runs_on_a_gateway_cluster_and_survives_the_loss_of_a_worker(gateway, tmp_path):
    cluster = gateway.new_cluster()
    try:
        cluster.scale(2)
        client = cluster.get_client(set_as_default=False)
        store = Store(tmp_path / "hpnb.sqlite")
        search = hpnb.search(half_second, store=store, client=client, name="gateway", metric="loss",
                             trials=12, parallel=2, retries=2, parameters={"x": {"min": 0.0, "max": 1.0}})
        wait_until(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == 2,
                   message="the gateway starts 2 workers")
        wait_until(lambda: any(t.state == "COMPLETED" for t in store.trials(search.experiment_id)),
                   message="a trial completes")
        lost = sorted(client.scheduler_info(n_workers=-1)["workers"])[0]
        with contextlib.suppress(CommClosedError):  # the worker process dies before it answers
            client.run(os._exit, 1, workers=[lost])
        search.wait(180)
        assert search.state == "COMPLETED", search.message
        trials = store.trials(search.experiment_id)
        assert [t.state for t in trials] == ["COMPLETED"] * 12
        assert lost not in client.scheduler_info(n_workers=-1)["workers"]
        store.close()
    finally:
        cluster.shutdown()
