"""Getting a Dask ``Client`` for a search from its ``resources``.

- ``cluster: local``: a ``LocalCluster`` with processes, created once per
  process and shape (workers, threads, memory limit, adapt) and reused by
  later searches that ask for the same shape.
- ``cluster: tcp://host:port``: a client of that running scheduler, shared by the searches on
  it and closed when the last of them ends.
- ``cluster: NAME``: a ``Client`` or cluster object named NAME in the notebook (one client
  per cluster object, shared by its searches and closed with the cluster).
- a ``Client`` passed in Python is used as it is.

hpnb never closes a cluster it did not create.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import sys
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.cluster.cluster_errors import ClusterError, MainGuardError
from hpnb.cluster.trial_slots import WorkerSlot, check_fits, local_slots, worker_resources
from hpnb.core.spec.resources import Resources

if TYPE_CHECKING:  # distributed takes a while to import: the cell that starts a search does not
    from distributed import Client

_lock = threading.Lock()
_local: dict[LocalShape, Client] = {}
_remote: dict[str, Client] = {}
#: the searches running on each client of ``_remote`` (its entry goes when the last ends)
_remote_searches: dict[Client, int] = {}
#: addresses whose client something besides a search asked for: it stays open
_remote_kept: set[str] = set()
#: the client of each cluster object searches were given (the entry goes with the object)
_of_cluster: weakref.WeakKeyDictionary[Any, Client] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class LocalShape:
    """What a local cluster is made of."""

    workers: int
    threads_per_worker: int
    memory_limit: int | str
    adapt: tuple[int, int] | None = None
    #: with per-trial resources, each worker's: what it advertises and its environment
    slots: tuple[WorkerSlot, ...] = ()

    @classmethod
    def from_resources(cls, resources: Resources) -> LocalShape:
        memory = resources.memory_limit_bytes()
        adapt = None
        if resources.adapt:
            if resources.per_trial:
                raise ClusterError("resources.adapt: a local cluster sized by resources.per_trial does not "
                                   "adapt; allowed: per_trial without adapt, or adapt without per_trial")
            adapt = (int(resources.adapt["minimum"]), int(resources.adapt["maximum"]))
        if resources.per_trial:
            slots = local_slots(resources)
            return cls(len(slots), resources.threads_per_worker, memory if memory else "auto", slots=slots)
        workers = adapt[0] if adapt else (resources.workers or default_local_workers())
        return cls(workers, resources.threads_per_worker, memory if memory else "auto", adapt)


def check_local_fits(resources: Resources, widest: int = 1) -> None:
    """Refuse, before anything starts, requests this machine cannot give: ``widest`` is the most
    workers one trial spans (``resources.per_trial.workers``).

    Raises:
        ClusterError: naming the field, what was asked and what the machine has.
        MainGuardError: when a worker process re-runs an unguarded main script.
    """
    if resources.cluster != "local":
        return
    refuse_rerun_of_main()
    import psutil

    shape = LocalShape.from_resources(resources)
    workers = len(shape.slots) if shape.slots else shape.adapt[1] if shape.adapt else shape.workers
    if widest > workers:
        raise ClusterError(f"resources.per_trial.workers: a trial spans {widest} workers, but the local "
                           f"cluster has {workers}; allowed: at most {workers}, or more workers "
                           "(resources.workers)")
    if shape.slots:  # sized to fit the machine: checked as its workers were planned
        return
    cores = os.cpu_count() or 1
    cpu = resources.cpu_request()
    if cpu is not None and cpu * workers > cores:
        raise ClusterError(f"resources.requests.cpu: {workers} workers x {resources.requests['cpu'].raw} "
                           f"= {cpu * workers:g} cores, more than this machine's {cores}; "
                           "allowed: fewer workers or a smaller request")
    memory = resources.memory_request_bytes()
    total = psutil.virtual_memory().total
    if memory is not None and memory * workers > total:
        raise ClusterError(f"resources.requests.memory: {workers} workers x "
                           f"{resources.requests['memory'].raw} = {memory * workers / 2**30:.1f} GiB, more "
                           f"than this machine's {total / 2**30:.1f} GiB; allowed: fewer workers or less")


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
        client = _local.get(shape)
        if client is not None and client.status == "running":
            return client
        client = _local[shape] = start_local(shape)
        return client


def start_local(shape: LocalShape) -> Client:
    """A new local cluster of ``shape`` and its client (the caller closes both).

    Raises:
        MainGuardError: in a worker process re-running an unguarded main script, and in
            the script itself when its cluster then fails to start.
    """
    import dask
    from distributed import Client, LocalCluster

    from hpnb.cluster.keeper import keep_size
    from hpnb.cluster.worker_signals import IgnoreInterrupts

    refuse_rerun_of_main()
    # Let hpnb, not the scheduler, decide what to do when a worker dies: its
    # retries resume from the trial's latest checkpoint.
    # Tasks wait on the scheduler, not behind a long trial on a busy worker.
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                              "distributed.scheduler.worker-saturation": 1.0}):
            if shape.slots:
                cluster = slot_cluster(shape)
            else:
                cluster = LocalCluster(n_workers=shape.workers, threads_per_worker=shape.threads_per_worker,
                                       processes=True, memory_limit=shape.memory_limit,
                                       dashboard_address="127.0.0.1:0")
            if shape.adapt is not None:
                cluster.adapt(minimum=shape.adapt[0], maximum=shape.adapt[1])
            else:
                keep_size(cluster)  # lost workers, and nannies that gave up, replaced
    except Exception as exc:
        unguarded = _unguarded_main_script()
        if unguarded is None:
            raise
        raise MainGuardError(unguarded) from exc
    client = Client(cluster, set_as_default=False)
    client.register_plugin(IgnoreInterrupts())
    return client


def slot_cluster(shape: LocalShape) -> Any:
    """A local cluster of one worker process per slot, each advertising its resources and started
    with its environment (its ``CUDA_VISIBLE_DEVICES``: set before any user code imports a framework)."""
    from distributed import Nanny, Scheduler, SpecCluster

    workers = {
        f"slot-{index}": {"cls": Nanny, "options": {
            "nthreads": shape.threads_per_worker, "resources": dict(slot.resources), "env": dict(slot.env),
            "memory_limit": shape.memory_limit if shape.memory_limit != "auto"
            else int(slot.resources["memory"])}}
        for index, slot in enumerate(shape.slots)
    }
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": "127.0.0.1:0"}}
    return SpecCluster(workers=workers, scheduler=scheduler, name="hpnb-slots")


_MAIN_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__""")


def refuse_rerun_of_main() -> None:
    """Refuse to start a local cluster from the main script's module-level code re-run by a
    spawned worker process (which imports it as ``__mp_main__``): that worker fails at once.

    Raises:
        MainGuardError: naming the script and the ``if __name__ == "__main__":`` guard.
    """
    frame = sys._getframe(1)
    while frame.f_globals.get("__name__") != "__mp_main__":
        if frame.f_back is None:
            return
        frame = frame.f_back
    raise MainGuardError(str(frame.f_globals.get("__file__", "the main script")))


def _unguarded_main_script() -> str | None:
    """The main script's path if it has no ``if __name__ == "__main__":`` guard, else None."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    try:
        source = Path(path).read_text(errors="replace") if path else ""
    except OSError:
        return None
    return None if not source or _MAIN_GUARD.search(source) else str(path)


def close_client_and_cluster(client: Client) -> None:
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()


def shutdown_local() -> None:
    """Close the local clusters hpnb created in this process."""
    with _lock:
        while _local:
            close_client_and_cluster(_local.popitem()[1])


def address_client(address: str, *, for_search: bool = False) -> Client:
    """A client of the running scheduler at ``address`` (cached per address); ``for_search``: one
    more search uses it, and :func:`search_left` tells when that search ended. A client asked for
    otherwise stays open as long as this process."""
    from distributed import Client

    with _lock:
        client = _remote.get(address)
        if client is None or client.status != "running":
            try:
                client = Client(address, timeout="10s", set_as_default=False)
            except OSError as exc:
                raise ClusterError(f"resources.cluster: no Dask scheduler answers at {address} ({exc}); "
                                   "start one with `dask scheduler` and `dask worker ADDRESS`") from exc
            _remote[address] = client
        if for_search:
            _remote_searches[client] = _remote_searches.get(client, 0) + 1
        else:
            _remote_kept.add(address)
        return client


def search_left(address: str, client: Client) -> None:
    """A search on ``client`` of the scheduler at ``address`` ended: the last one closes it. A client
    left connected to the user's cluster would try to reconnect when that cluster closes, and log
    its failure as an error."""
    with _lock:
        left = _remote_searches.get(client, 1) - 1
        if left > 0:
            _remote_searches[client] = left
            return
        _remote_searches.pop(client, None)
        if address in _remote_kept and _remote.get(address) is client:
            return
        if _remote.get(address) is client:
            del _remote[address]
    with contextlib.suppress(Exception):  # its scheduler gone already
        client.close()


def client_from_object(obj: Any, name: str) -> Client:
    """A client for a ``Client`` or a cluster object found in the notebook namespace."""
    from distributed import Client

    if isinstance(obj, Client):
        return obj
    if hasattr(obj, "scheduler_address") and hasattr(obj, "scale"):
        return cluster_client(obj)
    raise ClusterError(f"resources.cluster: {name!r} is a {type(obj).__name__}, not a dask Client or cluster")


def cluster_client(cluster: Any) -> Client:
    """The one client hpnb keeps for a cluster object (a ``LocalCluster``, a Gateway cluster):
    made by the first search on it, closed when the cluster closes or at exit."""
    from distributed import Client

    with _lock:
        client = _of_cluster.get(cluster)
        if client is not None and client.status == "running":
            return client
        client = _of_cluster[cluster] = Client(cluster, set_as_default=False)
        if not getattr(cluster, "_hpnb_closes_client", False):
            _close_client_with(cluster)
        return client


def _close_client_with(cluster: Any) -> None:
    """Make ``cluster.close`` (and so ``with cluster:``) close hpnb's client of it first."""
    close, own = type(cluster).close, weakref.ref(cluster)  # no cycle: the cluster goes when unused

    def close_with_client(*args: Any, **kwargs: Any) -> Any:
        target = own()
        if target is None:
            return None
        forget_cluster(target)
        return close(target, *args, **kwargs)

    cluster.close = close_with_client
    cluster._hpnb_closes_client = True


def forget_cluster(cluster: Any) -> None:
    """Close hpnb's client of a cluster object, if it has one."""
    with _lock:
        client = _of_cluster.pop(cluster, None)
    if client is not None:
        client.close()


def close_cluster_clients() -> None:
    """Close the clients hpnb made for cluster objects (at exit; their clusters stay the user's)."""
    with _lock:
        clients = list(_of_cluster.values())
        _of_cluster.clear()
    for client in clients:
        with contextlib.suppress(Exception):
            client.close()


atexit.register(close_cluster_clients)


@dataclass
class Connection:
    """A client for one search, and what to do with the cluster when the search ends.

    Attributes:
        client: the Dask client trials are submitted through.
        close: what the search's end does: close a cluster created for it alone (Kubernetes), or
            let go of a client of a running scheduler shared with other searches; else None.
        scale: grows or shrinks the cluster to a number of workers, where hpnb may.
        restart_worker: restarts one worker (by address) of a cluster hpnb started, to free a
            thread that a trial holds after it was asked to stop; None on the user's clusters.
    """

    client: Client
    close: Callable[[], None] | None = None
    scale: Callable[[int], None] | None = None
    restart_worker: Callable[[str], None] | None = None


def connect(resources: Resources, name: str, client: Client | None = None,
            namespace: Mapping[str, Any] | None = None) -> Connection:
    """The connection a search called ``name`` with ``resources`` runs its trials through.

    Raises:
        ClusterError: the cluster cannot be had, or none of its workers can hold a trial's
            ``resources.per_trial`` (the message names the resource and what the workers offer).
    """
    connection = _connect(resources, name, client, namespace)
    if resources.per_trial:
        try:
            check_fits(resources.per_trial,
                       worker_resources(connection.client.scheduler_info(n_workers=-1)))
        except ClusterError:
            if connection.close is not None:
                connection.close()
            raise
    return connection


def _connect(resources: Resources, name: str, client: Client | None,
             namespace: Mapping[str, Any] | None) -> Connection:
    if client is not None:
        own = any(client is local for local in _local.values())  # a local cluster hpnb started
        return Connection(client, restart_worker=restarter(client) if own else None)
    cluster = resources.cluster
    if cluster == "local":
        local = local_client(resources)
        return Connection(local, restart_worker=restarter(local))
    if "://" in cluster:
        remote = address_client(cluster, for_search=True)
        return Connection(remote, close=partial(search_left, cluster, remote))
    if cluster == "kubernetes":
        from hpnb.cluster.kubernetes import KubernetesBackend
        from hpnb.cluster.kubernetes_manifest import cluster_name_for

        backend = KubernetesBackend(resources, cluster_name_for(name))
        started = backend.start()
        return Connection(started, close=backend.close, scale=backend.scale,
                          restart_worker=restarter(started))
    if namespace is None or cluster not in namespace:
        raise ClusterError(f"resources.cluster: no Client or cluster named {cluster!r} in the notebook; "
                           "allowed: local, kubernetes, tcp://host:port, or a name defined in the notebook")
    return Connection(client_from_object(namespace[cluster], cluster))


def starting_message(resources: Resources, name: str, client: Client | None = None) -> str | None:
    """What a search waits for while :func:`connect` runs, as its dashboard says it; None when
    the client is there already (the kernel's local cluster once started, a client passed in).

    Example:
        >>> starting_message(Resources(workers=2), "demo")
        'starting the local cluster (2 workers)'
    """
    cluster = resources.cluster
    if client is not None:
        return None
    if cluster == "local":
        shape = LocalShape.from_resources(resources)
        running = _local.get(shape)  # no lock: a start in progress holds it for seconds
        if running is not None and running.status == "running":
            return None
        workers = f"{shape.adapt[0]}-{shape.adapt[1]}" if shape.adapt else str(shape.workers)
        return f"starting the local cluster ({workers} worker{'' if workers == '1' else 's'})"
    if "://" in cluster:
        known = _remote.get(cluster)
        if known is not None and known.status == "running":
            return None
        return f"connecting to the Dask scheduler at {cluster}"
    if cluster == "kubernetes":
        from hpnb.cluster.kubernetes_manifest import cluster_name_for

        return f"starting the Kubernetes cluster {cluster_name_for(name)!r}"
    return None


def restarter(client: Client) -> Callable[[str], None]:
    """Restarts a worker of ``client``'s cluster at once: its nanny kills the worker process
    (a thread stuck in user code never lets it close gracefully) and starts a new one."""

    def restart(address: str) -> None:
        try:
            client.run(_kill_worker_process, workers=[address], nanny=True)
        except Exception:  # no nanny reachable: ask the scheduler (slower, graceful first)
            client.restart_workers([address], raise_for_error=False)

    return restart


def _kill_worker_process(dask_worker: Any) -> None:
    """Run on a nanny: SIGKILL its worker process; the nanny then starts a fresh one."""
    import signal

    os.kill(dask_worker.process.process.pid, signal.SIGKILL)
