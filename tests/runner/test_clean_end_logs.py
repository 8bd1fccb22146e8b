"""A search that ended well prints nothing a user would read as a failure: no ERROR record and no
traceback, while it runs, as it ends, and when its cluster closes afterwards; on the local cluster
hpnb starts and closes, and on a cluster the user started and closes (by address or by Client).

Every objective is put in the cluster once per search (``hpnb.runner.shared_objective``); the ones
here capture a few megabytes, as a notebook's data would. The scheduler of a ``LocalCluster`` logs
in this process (its records are caught here); its workers are processes whose output reaches this
process's stderr (read through ``capfd``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from distributed import Client, LocalCluster

import hpnb
from hpnb.cluster import connect
from tests.log_checks import assert_nothing_alarming
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

X_SPACE = {"x": {"min": 0.0, "max": 1.0}}


def captures_data(failing_above: float = 2.0, step_sleep: float = 0.0) -> Callable[..., float]:
    """An objective that captures 4 MiB of data and fails for ``x`` above ``failing_above``."""
    data = np.ones(2**19)

    def train(x: float) -> float:
        for step in range(3):
            hpnb.report(step=step, loss=x + step + float(data[0]) - 1.0)
            time.sleep(step_sleep)
        if x > failing_above:
            raise ValueError(f"x={x} is too large")
        return x

    return train


def scattered_data(client: Client) -> list[str]:
    """The keys of data put in the cluster from outside (no task computes them) that its workers
    hold: the ones whose loss, when a worker goes, Dask's scheduler logs as an error."""

    def pure_data(dask_scheduler: Any) -> list[str]:
        return sorted(str(key) for key, task in dask_scheduler.tasks.items()
                      if task.run_spec is None and task.who_has)

    return list(client.run_on_scheduler(pure_data))


def trials_of(search: Any) -> list[Any]:
    return list(search.store.trials(search.experiment_id))


def stop_when_half_done(search: Any, trials: int) -> None:
    """Stop ``search`` once half its trials ended."""

    def ended() -> int:
        return len([t for t in trials_of(search) if t.state in ("COMPLETED", "FAILED")])

    wait_until(lambda: ended() >= trials // 2, timeout=120, message="half of the trials ended")
    search.stop()


LOCAL = {"cluster": "local", "workers": 2}
ADAPTIVE = {"cluster": "local", "adapt": {"minimum": 0, "maximum": 2}}


@pytest.mark.parametrize(("ending", "resources"), [("completed", LOCAL), ("stopped", LOCAL),
                                                   ("completed", ADAPTIVE)], ids=["completed", "stopped",
                                                                                  "adaptive"])
def test_a_search_on_the_local_cluster_and_its_close_log_no_error(records, capfd, tmp_path, ending,
                                                                  resources):
    connect.shutdown_local()  # a cluster of this search's own, closed below as hpnb closes it
    stopped = ending == "stopped"  # with failed trials, whose tracebacks the store keeps
    objective = captures_data(failing_above=0.5 if stopped else 2.0, step_sleep=0.05 if stopped else 0.0)
    search = hpnb.search(objective, store=tmp_path / "hpnb.sqlite", name="clean-local", metric="loss",
                         parameters=X_SPACE, trials=12, seed=0, resources=resources)
    if stopped:
        stop_when_half_done(search, 12)
    search.wait(patience(180))
    states = {t.state for t in trials_of(search)}
    if stopped:
        assert search.state == "STOPPED", search.message
        assert "FAILED" in states
        assert any("too large" in (t.error or "") for t in trials_of(search))
    else:
        assert search.state == "COMPLETED", search.message
        assert states == {"COMPLETED"}
    [client] = connect._local.values()
    assert scattered_data(client) == []  # the search's copy of the objective is gone at once
    connect.shutdown_local()
    assert_nothing_alarming(records, capfd)


@pytest.fixture
def users_cluster() -> Iterator[LocalCluster]:
    """A cluster the user started: two single-threaded worker processes."""
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address="127.0.0.1:0")
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.mark.parametrize("given_as", ["address", "client"])
def test_a_search_on_the_users_cluster_leaves_nothing_there_and_its_close_logs_no_error(
        records, capfd, tmp_path, users_cluster, given_as):
    address = users_cluster.scheduler_address
    users_client = Client(users_cluster, set_as_default=False)
    where: dict[str, Any] = ({"resources": {"cluster": address}} if given_as == "address"
                             else {"client": users_client})
    search = hpnb.search(captures_data(), store=tmp_path / "hpnb.sqlite", name="clean-users", metric="loss",
                         parameters=X_SPACE, trials=12, seed=0, **where).wait(patience(180))
    assert search.state == "COMPLETED", search.message
    assert scattered_data(users_client) == []  # the user's cluster keeps nothing of the search
    users_client.close()
    users_cluster.close()
    # hpnb's own client of the address is done with it once the cluster is gone
    wait_until(lambda: getattr(connect._remote.get(address), "status", "closed") == "closed", timeout=60,
               message="hpnb's client of the closed cluster closed")
    assert_nothing_alarming(records, capfd)
