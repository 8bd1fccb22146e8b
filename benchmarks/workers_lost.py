"""A cluster that loses its workers: how soon the search says so, and how soon hpnb's own local
cluster is whole again.

1. A user's cluster (``dask scheduler`` + 2 ``dask worker --no-nanny`` processes) runs a search of
   1-second trials; both workers are SIGKILLed. Measured: seconds until the search's summary (what
   the dashboard, the Lab and ``hpnb show`` read) says ``waiting for workers: none since HH:MM``.
2. ``cluster: local`` with 3 workers: every worker process SIGKILLed at once (the nannies restart
   them), then every nanny closed (as Dask's nannies do after repeated deaths: hpnb's keeper starts
   new ones). Measured: seconds until 3 workers are back, each time.

Goals: each within 30 s.

Usage:
    python benchmarks/workers_lost.py
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cloudpickle
from distributed import Client

import hpnb
from hpnb.api import open_store
from hpnb.cluster.connect import local_client
from hpnb.core.spec.resources import Resources
from hpnb.core.summary import store_summaries

cloudpickle.register_pickle_by_value(sys.modules[__name__])
GOAL = 30.0


def slow(x: float) -> float:
    for step in range(10):
        time.sleep(0.1)
        hpnb.report(step=step, loss=x)
    return x


def seconds_until(condition: Callable[[], bool], limit: float = 120.0) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > limit:
            return float("inf")
        time.sleep(0.1)
    return time.monotonic() - start


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def users_cluster_said(home: Path) -> float:
    dask = str(Path(sys.executable).parent / "dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    processes = [subprocess.Popen(scheduler, **quiet)]
    try:
        processes += [subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-nanny",
                                        "--no-dashboard"], **quiet) for _ in range(2)]
        client = Client(address, timeout="90s")
        client.wait_for_workers(2, timeout=60)
        store = open_store(home / "users.sqlite")
        search = hpnb.search(slow, name="users", store=store, client=client, metric="loss",
                             parameters={"x": {"min": 0.0, "max": 1.0}}, trials=20, parallel=2)
        seconds_until(lambda: any(t.state == "COMPLETED" for t in store.trials(search.experiment_id)))
        for process in processes[1:]:
            process.kill()

        def said() -> bool:
            summary = next(s for s in store_summaries(store, time.time()) if s.name == "users")
            return "waiting for workers: none since" in (summary.message or "")

        seconds = seconds_until(said)
        search.stop()
        client.close()
        return seconds
    finally:
        for process in processes:
            process.kill()


def local_cluster_back() -> tuple[float, float]:
    client = local_client(Resources(workers=3))
    client.wait_for_workers(3, timeout=60)

    def pids() -> set[int]:
        try:
            return set(client.run(os.getpid).values())
        except Exception:  # a worker dying as we ask
            return set()

    def whole_again(old: set[int]) -> Callable[[], bool]:
        def check() -> bool:
            now = pids()
            return len(now) == 3 and not now & old
        return check

    before = pids()
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    killed = seconds_until(whole_again(before))
    before = pids()
    cluster = client.cluster
    for nanny in list(cluster.workers.values()):
        cluster.sync(nanny.close)
    closed = seconds_until(whole_again(before))
    return killed, closed


def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        said = users_cluster_said(Path(home))
    killed, closed = local_cluster_back()
    print(f"user's cluster, both workers SIGKILLed: said after {said:.1f} s")
    print(f"cluster: local (3 workers), all SIGKILLed: 3 back after {killed:.1f} s")
    print(f"cluster: local (3 workers), all nannies closed: 3 back after {closed:.1f} s")
    met = max(said, killed, closed) <= GOAL
    print(f"each within {GOAL:.0f} s: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
