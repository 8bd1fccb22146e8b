"""Getting a Dask ``Client`` for a search from its ``resources``.

- ``cluster: local``: a ``LocalCluster`` with processes, created once per
  process and reused by later searches (re-created only when a later search
  asks for a different shape and no search is using it).
- ``cluster: tcp://host:port``: a client of that running scheduler.
- ``cluster: NAME``: a ``Client`` or cluster object named NAME in the notebook.
- a ``Client`` passed in Python is used as it is.

hpnb never closes a cluster it did not create.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from distributed import Client

from hpnb.cluster.errors import ClusterError
from hpnb.core.resources import Resources

_lock = threading.Lock()
_local: dict[str, Any] = {}
_remote: dict[str, Client] = {}


@dataclass(frozen=True)
class LocalShape:
    """What a local cluster is made of."""

    workers: int
    threads_per_worker: int
    memory_limit: int | str

    @classmethod
    def from_resources(cls, resources: Resources) -> LocalShape:
        workers = resources.workers or default_local_workers()
        memory = resources.memory_limit_bytes()
        return cls(workers, resources.threads_per_worker, memory if memory else "auto")


def default_local_workers() -> int:
    """One single-threaded worker per core, at most 8."""
    return max(1, min(os.cpu_count() or 1, 8))


def local_client(resources: Resources) -> Client:
    """The process-wide local cluster's client for ``resources``' shape.

    Example:
        >>> client = local_client(Resources(workers=2))  # doctest: +SKIP
    """
    shape = LocalShape.from_resources(resources)
    with _lock:
        client = _local.get("client")
        if client is not None and _local.get("shape") == shape and client.status == "running":
            return client
        if client is not None:
            _close_local()
        client = _start_local(shape)
        _local.update(client=client, shape=shape)
        return client


def _start_local(shape: LocalShape) -> Client:
    import dask
    from distributed import LocalCluster

    # Let hpnb, not the scheduler, decide what to do when a worker dies: its
    # retries resume from the trial's latest checkpoint.
    # Tasks wait on the scheduler, not behind a long trial on a busy worker.
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}):
        cluster = LocalCluster(n_workers=shape.workers, threads_per_worker=shape.threads_per_worker,
                               processes=True, memory_limit=shape.memory_limit,
                               dashboard_address="127.0.0.1:0")
    return Client(cluster, set_as_default=False)


def _close_local() -> None:
    client = _local.pop("client", None)
    _local.pop("shape", None)
    if client is not None:
        cluster = client.cluster
        client.close()
        if cluster is not None:
            cluster.close()


def shutdown_local() -> None:
    """Close the local cluster hpnb created in this process, if any."""
    with _lock:
        _close_local()


def address_client(address: str) -> Client:
    """A client of the running scheduler at ``address`` (cached per address)."""
    with _lock:
        client = _remote.get(address)
        if client is not None and client.status == "running":
            return client
        try:
            client = Client(address, timeout="10s", set_as_default=False)
        except OSError as exc:
            raise ClusterError(f"resources.cluster: no Dask scheduler answers at {address} ({exc}); "
                               "start one with `dask scheduler` and `dask worker ADDRESS`") from exc
        _remote[address] = client
        return client


def client_from_object(obj: Any, name: str) -> Client:
    """A client for a ``Client`` or a cluster object found in the notebook namespace."""
    if isinstance(obj, Client):
        return obj
    if hasattr(obj, "scheduler_address") and hasattr(obj, "scale"):
        return Client(obj, set_as_default=False)
    raise ClusterError(f"resources.cluster: {name!r} is a {type(obj).__name__}, not a dask Client or cluster")


@dataclass
class Connection:
    """A client for one search, and what to do with the cluster when the search ends.

    Attributes:
        client: the Dask client trials are submitted through.
        close: closes a cluster created for this search alone (Kubernetes), else None.
        scale: grows or shrinks the cluster to a number of workers, where hpnb may.
    """

    client: Client
    close: Callable[[], None] | None = None
    scale: Callable[[int], None] | None = None


def connect(resources: Resources, name: str, client: Client | None = None,
            namespace: Mapping[str, Any] | None = None) -> Connection:
    """The connection a search called ``name`` with ``resources`` runs its trials through."""
    if client is not None:
        return Connection(client)
    cluster = resources.cluster
    if cluster == "local":
        return Connection(local_client(resources))
    if "://" in cluster:
        return Connection(address_client(cluster))
    if cluster == "kubernetes":
        from hpnb.cluster.kubernetes import KubernetesBackend
        from hpnb.cluster.kubernetes_manifest import cluster_name_for

        backend = KubernetesBackend(resources, cluster_name_for(name))
        started = backend.start()
        return Connection(started, close=backend.close, scale=backend.scale)
    if namespace is None or cluster not in namespace:
        raise ClusterError(f"resources.cluster: no Client or cluster named {cluster!r} in the notebook; "
                           "allowed: local, kubernetes, tcp://host:port, or a name defined in the notebook")
    return Connection(client_from_object(namespace[cluster], cluster))
