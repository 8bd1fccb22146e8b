"""hpnb against a real Dask Gateway: ``dask-gateway-server`` with its local backend, started on
127.0.0.1 by the test, and clusters created through ``dask_gateway.Gateway`` as a JupyterHub user
creates them. A search names the cluster's client in ``resources.cluster``, runs to completion,
lets the cluster adapt, and survives the loss of a whole worker (its process group killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

import hpnb
from hpnb.core.store import Store
from tests.log_checks import assert_nothing_alarming
from tests.runner.processes import free_port
from tests.store_checks import no_result_stored_twice as no_result_stored_twice
from tests.waiting import patience, wait_until

pytest.importorskip("dask_gateway_server", reason="the test extra brings dask-gateway-server")
pytest.importorskip("dask_gateway", reason="the test extra brings dask-gateway")
from dask_gateway import Gateway, GatewayCluster

pytestmark = [
    pytest.mark.slow,
    # dask_gateway's Gateway.__del__ closes a closed Gateway again, which current distributed refuses
    pytest.mark.filterwarnings(
        r"ignore:Exception ignored in. <function Gateway.__del__:pytest.PytestUnraisableExceptionWarning"),
]

ROOT = Path(__file__).resolve().parents[2]

# The gateway's workers import nothing from the test tree: ship this module's objectives by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def gateway_config(directory: Path, api_port: int, proxy_port: int) -> str:
    """A gateway configuration for one user on this machine: processes under ``directory``,
    workers of one thread, the schedulers' adaptive loop every second."""
    python = sys.executable
    return textwrap.dedent(f"""\
        c.DaskGateway.address = "127.0.0.1:{api_port}"
        c.Proxy.address = "127.0.0.1:{proxy_port}"
        c.DaskGateway.backend_class = "dask_gateway_server.backends.local.UnsafeLocalBackend"
        c.LocalBackend.clusters_directory = {str(directory / "clusters")!r}
        c.ClusterConfig.scheduler_cmd = [{python!r}, "-m", "distributed.cli.dask_scheduler"]
        c.ClusterConfig.worker_cmd = [{python!r}, "-m", "distributed.cli.dask_worker"]
        c.ClusterConfig.worker_threads = 1
        c.ClusterConfig.worker_memory = "1 G"
        c.ClusterConfig.cluster_max_workers = 4
        c.ClusterConfig.adaptive_period = 1.0
        """)


def _answers(gateway: Gateway) -> bool:
    try:
        gateway.list_clusters()
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """A running gateway server and a client of it (basic auth, as the user running the tests)."""
    directory = tmp_path_factory.mktemp("gateway")
    api_port, proxy_port = free_port(), free_port()
    config = directory / "dask_gateway_config.py"
    config.write_text(gateway_config(directory, api_port, proxy_port))
    # the workers inherit PYTHONPATH from the server: they import this tree's hpnb
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    log = directory / "server.log"
    server = subprocess.Popen([sys.executable, "-m", "dask_gateway_server", "-f", str(config)], cwd=directory,
                              env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    client = Gateway(address=f"http://127.0.0.1:{api_port}", proxy_address=f"gateway://127.0.0.1:{proxy_port}",
                     auth="basic")
    try:
        wait_until(lambda: server.poll() is not None or _answers(client), 60, "the gateway server answering",
                   interval=0.2)
        assert server.poll() is None, f"the gateway server ended:\n{log.read_text()}"
        yield client
    finally:
        client.close()
        server.terminate()  # the server stops its clusters' schedulers and workers on the way out
        try:
            server.wait(patience(60))
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(patience(20))


@pytest.fixture
def gw_cluster(gateway: Gateway) -> Iterator[GatewayCluster]:
    cluster = gateway.new_cluster()
    try:
        yield cluster
    finally:
        cluster.shutdown()


@pytest.fixture
def gw_client(gw_cluster: GatewayCluster) -> Iterator[Any]:
    """The cluster's client, as ``gw_cluster.get_client()`` gives it in a notebook."""
    client = gw_cluster.get_client(set_as_default=False)
    yield client
    client.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


def stepper(x: float, steps: int = 6, pause: float = 0.05) -> dict[str, float]:
    """Reports a falling loss every step."""
    for step in range(steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(pause)
    return {"loss": x}


def checkpointed(x: float, pid_dir: str, steps: int = 12, tell_at: int = 4) -> dict[str, float]:
    """Checkpoints every step; the first run of ``x == 0`` writes its worker's pid at ``tell_at``
    (for the test to kill that worker) and goes on slowly."""
    state = hpnb.load_checkpoint()
    start = 0 if state is None else state["step"] + 1
    for step in range(start, steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1), started_at=start, pid=os.getpid(),
                    checkpoint={"step": step})
        if x == 0 and step == tell_at and state is None:
            (Path(pid_dir) / "pid.tmp").write_text(str(os.getpid()))
            (Path(pid_dir) / "pid.tmp").rename(Path(pid_dir) / "pid")
        time.sleep(0.25)
    return {"loss": x}


def worker_count(client: Any) -> int:
    return len(client.scheduler_info(n_workers=-1)["workers"])


@pytest.mark.parametrize("named", ["client", "gw_cluster"])
def test_a_search_names_the_gateway_cluster_or_its_client_and_runs_to_completion(gw_cluster, gw_client, store,
                                                                                 named, records, capfd):
    gw_cluster.scale(2)
    client = gw_client
    client.wait_for_workers(2, timeout=120)
    spec = f"""
        metric: loss
        strategy: random
        trials: 6
        seed: 0
        parameters:
          x: {{min: 0.0, max: 1.0}}
        resources: {{cluster: {named}}}
        """
    notebook = {"client": client, "gw_cluster": gw_cluster}  # what the user's notebook defined
    search = hpnb.search(stepper, textwrap.dedent(spec), name="on-gateway", store=store, namespace=notebook)
    assert search.wait(patience(180)).state == "COMPLETED", search.message

    trials = store.trials(search.experiment_id)
    assert len(trials) == 6 and {t.state for t in trials} == {"COMPLETED"}
    gateway_workers = set(client.scheduler_info(n_workers=-1)["workers"])
    assert {t.worker for t in trials} <= gateway_workers  # they ran on the gateway's workers
    assert len({t.worker for t in trials}) == 2  # and used both
    steps = sorted((r.trial_id, r.step) for r in store.results(search.experiment_id) if r.step is not None)
    assert steps == sorted((t.trial_id, s) for t in trials for s in range(6))
    assert_nothing_alarming(records, capfd)  # a search that ended well logs no error, nor a traceback


def long_stepper(x: float) -> dict[str, float]:
    return stepper(x, steps=20, pause=0.2)


def test_the_gateway_cluster_adapts_to_the_search_and_back(gw_cluster, gw_client, store):
    gw_cluster.adapt(minimum=1, maximum=3)
    client = gw_client
    client.wait_for_workers(1, timeout=120)
    assert worker_count(client) == 1
    spec = {"metric": "loss", "strategy": "random", "trials": 9, "parallel": 3,
            "parameters": {"x": {"min": 0.0, "max": 1.0}}, "resources": {"cluster": "client"}}
    search = hpnb.search(long_stepper, spec, name="adapting", store=store, namespace={"client": client})
    most = 1
    deadline = time.monotonic() + 240
    while search.wait(0.5).state == "RUNNING" and time.monotonic() < deadline:
        most = max(most, worker_count(client))
    assert search.state == "COMPLETED", search.message
    assert most == 3  # the gateway added workers while trials waited
    assert len({t.worker for t in store.trials(search.experiment_id)}) == 3
    wait_until(lambda: worker_count(client) == 1, 90, "the idle gateway cluster shrinking to its minimum",
               interval=0.5)


def test_a_search_survives_the_loss_of_a_gateway_worker(gw_cluster, gw_client, store, tmp_path):
    gw_cluster.adapt(minimum=2, maximum=2)  # the gateway replaces a worker that is lost
    client = gw_client
    client.wait_for_workers(2, timeout=120)
    spec = {"metric": "loss", "strategy": {"name": "fixed", "configs": [{"x": 0.0}, {"x": 1.0}, {"x": 2.0}]},
            "parameters": {"x": [0.0, 1.0, 2.0]}, "parallel": 2, "retries": 2,
            "resources": {"cluster": "client"}}
    search = hpnb.search(lambda x: checkpointed(x, str(tmp_path)), spec, name="losing-a-worker", store=store,
                         namespace={"client": client})
    pid_file = tmp_path / "pid"
    wait_until(pid_file.exists, 120, "the first trial reaching step 4")
    pid = int(pid_file.read_text())
    group = os.getpgid(pid)
    assert group != os.getpgid(0)  # the gateway starts each worker in its own session
    assert group != pid  # led by the worker's nanny, the process the gateway started
    os.killpg(group, signal.SIGKILL)  # the worker and its nanny: the whole gateway worker is gone

    assert search.wait(patience(240)).state == "COMPLETED", search.message
    trials = {t.params["x"]: t for t in store.trials(search.experiment_id)}
    assert {t.state for t in trials.values()} == {"COMPLETED"}
    assert trials[0.0].retries == 1 and trials[1.0].retries == trials[2.0].retries == 0
    rows = [r for r in store.results(search.experiment_id) if r.trial_id == trials[0.0].trial_id]
    assert [r.step for r in rows if r.step is not None] == list(range(12))  # every step, once
    assert rows[-1].metrics["started_at"] >= 4  # continued from its checkpoint, not from step 0
    assert rows[-1].metrics["pid"] != pid
    retries = [e for e in store.events(search.experiment_id) if e["kind"] == "retry"]
    assert len(retries) == 1 and "died" in retries[0]["data"]["reason"]
