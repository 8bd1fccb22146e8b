"""A search's driver as a task on a worker of its own Dask cluster (``detach: cluster``).

The task is one no client holds (``fire_and_forget``): the scheduler keeps it, and runs it again on
another worker when the one running it dies; the driver then resumes the search from the store. The
cluster must outlive the process that starts the search: a running scheduler (``tcp://...``, or a
notebook's ``Client`` of one), or a Kubernetes ``DaskCluster`` started for the search, which the
operator deletes once the search has ended and its scheduler stayed idle
(``kubernetes.idle_timeout``).

Example:
    >>> check_driver_cluster(None, "tcp://scheduler:8786")
    >>> check_driver_cluster(None, "local")
    Traceback (most recent call last):
    ...
    hpnb.core.errors.HpnbError: detach: cluster needs a Dask cluster that outlives this process ...
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import HpnbError
from hpnb.core.spec import parse_spec
from hpnb.core.store import CLEAR, ExperimentRecord, Store
from hpnb.core.trial import ExperimentState
from hpnb.driving.placement import DetachedDriver

if TYPE_CHECKING:
    from distributed import Client

#: seconds the scheduler has to take the driver's task before the start is called failed.
TAKE_TIMEOUT = 30.0


def check_driver_cluster(address: str | None, cluster: str) -> None:
    """Raise before anything starts when a driver could not run on the search's cluster.

    Args:
        address: a running scheduler the notebook names by a ``Client`` (None: the spec's cluster).
        cluster: the spec's ``resources.cluster``.

    Raises:
        HpnbError: the cluster is one this process starts (``local``), or Kubernetes without its
            extra or credentials (a ``ClusterError`` saying what to install or set).
    """
    if address is None and cluster == "kubernetes":
        from hpnb.cluster.kubernetes import find_kube_credentials, require_kubernetes_extra

        require_kubernetes_extra()
        find_kube_credentials()
        return
    cluster_driver_address(address, cluster)


def cluster_driver_address(address: str | None, cluster: str) -> str:
    """The running scheduler a driver on the cluster is started on.

    Raises:
        HpnbError: the search's cluster is one this process starts (``local``) or names none.
    """
    if address is not None:
        return address
    if "://" in cluster:
        return cluster
    raise HpnbError(f"detach: cluster needs a Dask cluster that outlives this process (resources.cluster "
                    f"tcp://HOST:PORT, kubernetes, or a Client of the notebook), not {cluster!r}: a cluster "
                    "started here ends with this process; detach: process runs the driver beside it instead")


def start_on_cluster(store: Store, record: ExperimentRecord, address: str | None,
                     since: float) -> DetachedDriver:
    """Start the driver of ``record`` as a task on a worker of its cluster (see the module's docstring).

    Args:
        address: a running scheduler to use instead of the spec's ``resources.cluster``.
        since: commands sent from then on (epoch seconds) are for this driver.
    """
    cluster = str((record.spec.get("resources") or {}).get("cluster", "local"))
    on_kubernetes = address is None and cluster == "kubernetes"
    where = "its Kubernetes cluster" if on_kubernetes else cluster_driver_address(address, cluster)
    store.update_experiment(record.id, state=ExperimentState.RUNNING, heartbeat=time.time(), driver=CLEAR,
                            message=f"starting its driver on a worker of {where}")
    if on_kubernetes:
        client, scheduler, disconnect = _kubernetes_cluster(record)
    else:
        from hpnb.cluster.connect import address_client

        scheduler = where
        client, disconnect = address_client(scheduler), lambda: None
    try:
        _submit_driver(client, store, record, scheduler, since)
    finally:
        disconnect()
    return DetachedDriver(f"a worker of {scheduler}")


def _kubernetes_cluster(record: ExperimentRecord) -> tuple[Client, str, Callable[[], None]]:
    """The search's DaskCluster, started (or found) to outlive this process: a client of it, the
    scheduler's address inside the cluster (where the driver's worker reaches it), and what
    disconnects this process from it without deleting it."""
    from hpnb.cluster.kubernetes import KubernetesBackend
    from hpnb.cluster.kubernetes_manifest import cluster_name_for

    resources = parse_spec(record.spec).resources
    backend = KubernetesBackend(resources, cluster_name_for(record.name), outlives_starter=True)
    client = backend.start()
    return client, backend.in_cluster_address, backend.close


def _submit_driver(client: Any, store: Store, record: ExperimentRecord, scheduler: str, since: float) -> None:
    """The driver's task, held by the scheduler before this returns (a command line exits right after)."""
    from distributed import fire_and_forget

    key = f"hpnb-driver-{record.name}-{int(record.id)}-{int(since * 1000)}"
    # a server's password never travels in a task: workers connect with their own (PGPASSWORD, ~/.pgpass)
    future = client.submit(drive_on_worker, store.location.display, record.name, since, scheduler, key=key,
                           pure=False)
    fire_and_forget(future)
    deadline = time.monotonic() + TAKE_TIMEOUT
    while not client.run_on_scheduler(lambda dask_scheduler: key in dask_scheduler.tasks):
        if time.monotonic() > deadline:
            raise HpnbError(f"detach: the scheduler at {scheduler} did not take the driver's task in "
                            f"{TAKE_TIMEOUT:.0f} s")
        time.sleep(0.05)


def drive_on_worker(store: str, name: str, since: float, scheduler: str) -> str:
    """A search's driver as a task on a Dask worker (``detach: cluster``): it leaves the worker's
    pool of trial threads, runs the search to its end on the same cluster and returns its state.
    Run again on another worker after a worker's death, it resumes the search from the store."""
    from distributed import secede

    from hpnb.cluster.connect import address_client
    from hpnb.driving.detached_process import drive_to_end

    secede()  # a driver is not a trial: it takes no slot
    opened = Store(store)
    record = opened.experiment(name)
    if record.state != ExperimentState.RUNNING.value:
        return record.state  # it ended, or was stopped, while this task waited to run again
    return drive_to_end(opened, record, client=address_client(scheduler), since=since)
