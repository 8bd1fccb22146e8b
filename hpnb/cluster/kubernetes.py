"""Run trials on Kubernetes: a Dask cluster started through the Dask operator.

``resources: {cluster: kubernetes, ...}`` becomes a ``DaskCluster`` resource (see
:mod:`hpnb.cluster.kubernetes_manifest`) handed to
``dask_kubernetes.operator.KubeCluster``. Before anything is created the backend
checks, in order, each thing that commonly stands in the way and says how to fix it:
the Kubernetes extra, credentials (a kubeconfig or a pod's service account), a
reachable API server, and the operator's ``DaskCluster`` resource type. After the
cluster is up it waits, with a deadline, for the workers to join.

Example (needs a Kubernetes cluster with the Dask operator)::

    from hpnb.core.spec.resources import parse_resources
    resources = parse_resources({"cluster": "kubernetes", "workers": 4,
                                 "limits": {"cpu": "2", "memory": "4Gi"}})
    with KubernetesBackend(resources, "hpnb-demo") as backend:
        client = backend.start()
        backend.scale(8)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from hpnb.cluster.cluster_errors import (
    ClusterError,
    KubeConfigError,
    KubernetesApiError,
    KubernetesExtraMissingError,
    OperatorNotInstalledError,
    OperatorNotRunningError,
    WorkersTimeoutError,
)
from hpnb.cluster.kubernetes_manifest import (
    API_VERSION,
    adapt_bounds,
    autoscaler_manifest,
    cluster_manifest,
    manifest_yaml,
    replicas_for,
    scheduler_address_in_cluster,
)
from hpnb.core.closing import ClosedOnExit
from hpnb.core.spec.resources import Resources

__all__ = [
    "ApiCheck",
    "KubernetesBackend",
    "check_api",
    "cluster_manifest",
    "explain_api_error",
    "find_kube_credentials",
    "manifest_yaml",
    "require_kubernetes_extra",
    "wait_for_workers",
]

logger = logging.getLogger(__name__)

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
API_TIMEOUT = 15.0  # seconds for the checks made before anything is created
DEFAULT_TIMEOUT = 300.0  # seconds for pods to come up: image pulls and pip installs are slow
#: seconds the operator keeps a cluster running a search's driver once the search ended (its
#: scheduler idle), unless ``kubernetes.idle_timeout`` or ``keep`` says otherwise.
DRIVER_IDLE_TIMEOUT = 600
_PENDING_HINT = (
    "worker pods may be Pending (no node with the requested cpu, memory or GPU) or still pulling "
    "the image and installing packages; look with: kubectl get pods -l dask.org/cluster-name={name} "
    "-n {namespace}; or raise resources.kubernetes.timeout"
)


def require_kubernetes_extra() -> ModuleType:
    """``dask_kubernetes.operator``, or a :class:`KubernetesExtraMissingError` saying how to install it."""
    try:
        import dask_kubernetes.operator as operator
        import kr8s  # noqa: F401  (the client dask_kubernetes talks to the API server with)
    except ImportError as exc:
        raise KubernetesExtraMissingError((exc.name or "dask_kubernetes").split(".")[0]) from exc
    return operator


def find_kube_credentials(
    environ: Mapping[str, str] | None = None, service_account_dir: Path = SERVICE_ACCOUNT_DIR
) -> str:
    """Where the Kubernetes credentials will come from, or a :class:`KubeConfigError`.

    Looks where ``kubectl`` and the Kubernetes clients look: the files in ``KUBECONFIG``
    (else ``~/.kube/config``), then the service account of the pod this runs in.

    Example:
        >>> find_kube_credentials({"KUBECONFIG": "/no/such/file"}, Path("/no/such/dir"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        hpnb.cluster.cluster_errors.KubeConfigError: no Kubernetes credentials: KUBECONFIG=/no/such/file ...
    """
    env = os.environ if environ is None else environ
    configured = env.get("KUBECONFIG", "")
    candidates = [p for p in configured.split(os.pathsep) if p] or ["~/.kube/config"]
    for candidate in candidates:
        if Path(candidate).expanduser().is_file():
            return f"kubeconfig {candidate}"
    if env.get("KUBERNETES_SERVICE_HOST") and (service_account_dir / "token").is_file():
        return f"the pod's service account ({service_account_dir})"
    looked = f"KUBECONFIG={configured}" if configured else "~/.kube/config"
    raise KubeConfigError(
        f"no Kubernetes credentials: {looked} does not name an existing file, and this is not a pod "
        "with a service account (KUBERNETES_SERVICE_HOST is unset or no token is mounted). Set "
        "KUBECONFIG to the kubeconfig file of your cluster (the one `kubectl config view` shows), "
        "copy it to ~/.kube/config, or run the notebook inside the Kubernetes cluster."
    )


def explain_api_error(exc: BaseException) -> ClusterError | None:
    """The :class:`ClusterError` a failed Kubernetes call amounts to, or None if not an API failure.

    Understands the exceptions of ``kr8s`` (the client dask-kubernetes uses), ``httpx``
    beneath it, and the few ``dask_kubernetes`` raises itself.
    """
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):
        url = str(response.request.url) if response is not None else "the API server"
        if status == 404 and 'namespaces "' in str(exc):
            return KubernetesApiError(
                f"{exc} (Kubernetes API, {url}); create the namespace (kubectl create namespace NAME) "
                "or set resources.kubernetes.namespace to an existing one"
            )
        if status == 404 and "kubernetes.dask.org" in url:
            return OperatorNotInstalledError(_server_of(url))
        if status in (401, 403):
            return KubernetesApiError(
                f"the Kubernetes API refused {url} ({status}): the credentials in use may not create "
                "DaskCluster resources; ask for create/get/list/delete/patch on daskclusters, "
                "daskworkergroups and daskautoscalers (kubernetes.dask.org) and get/list on pods "
                "and services in the namespace"
            )
        return KubernetesApiError(f"the Kubernetes API answered {status} to {url}: {exc}")
    return _explain_transport_error(exc)


def _explain_transport_error(exc: BaseException) -> ClusterError | None:
    request = getattr(exc, "request", None) if not isinstance(exc, RuntimeError) else None
    url = _server_of(str(request.url)) if request is not None else "the configured API server"
    text = str(exc) or type(exc).__name__
    if type(exc).__name__ == "APITimeoutError" or isinstance(exc, asyncio.TimeoutError):
        if "not actioned" in text:
            return OperatorNotRunningError(
                f"{text.rstrip('?.')}: the DaskCluster resource exists but no Dask operator acted on "
                "it; check it runs with: kubectl get pods -A -l app.kubernetes.io/name="
                "dask-kubernetes-operator"
            )
        return KubernetesApiError(f"no answer from the Kubernetes API server at {url}: {text}")
    if type(exc).__module__.startswith("httpx") or isinstance(exc, OSError):
        return KubernetesApiError(
            f"cannot reach the Kubernetes API server at {url} ({text}); check the cluster is up and "
            "that the kubeconfig's current context points at it: kubectl cluster-info"
        )
    if "Custom Resource Definitions" in text:
        return OperatorNotInstalledError(url)
    return None


def _server_of(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}" if rest else url


@dataclass(frozen=True)
class ApiCheck:
    """What :func:`check_api` learnt: the server, the namespace in use, whether the cluster exists."""

    server: str
    namespace: str
    cluster_exists: bool


def check_api(name: str, namespace: str | None = None, timeout: float = API_TIMEOUT) -> ApiCheck:
    """Check the API server answers and knows ``DaskCluster``; look for the cluster ``name``.

    Raises:
        KubeConfigError, KubernetesApiError, OperatorNotInstalledError: with what to do.
    """
    result: ApiCheck = _run_isolated(_check_api(name, namespace), timeout)
    return result


async def _check_api(name: str, namespace: str | None) -> ApiCheck:
    import kr8s.asyncio

    try:
        api = await kr8s.asyncio.api()
    except ValueError as exc:  # kr8s: unusable kubeconfig or context
        raise KubeConfigError(f"the Kubernetes credentials could not be used: {exc}") from exc
    server, namespace = str(api.auth.server), namespace or str(api.namespace)
    group, version = API_VERSION.split("/")
    async with api.call_api("GET", version="", base=f"/apis/{group}", url=version) as response:
        kinds = {resource.get("kind") for resource in response.json().get("resources", [])}
    if "DaskCluster" not in kinds:
        raise OperatorNotInstalledError(server)
    async with api.call_api(
        "GET", version=API_VERSION, namespace=namespace, url=f"daskclusters/{name}", raise_for_status=False
    ) as response:
        exists = response.status_code == 200
    return ApiCheck(server, namespace, exists)


def _run_isolated(coroutine: Coroutine[Any, Any, Any], timeout: float) -> Any:
    """Run ``coroutine`` on a fresh event loop in its own thread, with a deadline.

    Own thread: a notebook's kernel already runs an event loop in the main thread.
    """
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hpnb-kubernetes") as pool:
        future = pool.submit(asyncio.run, asyncio.wait_for(coroutine, timeout))
        try:
            return future.result()
        except ClusterError:
            raise
        except (TimeoutError, asyncio.TimeoutError) as exc:
            raise KubernetesApiError(
                f"no answer from the Kubernetes API server within {timeout:g} s; check the cluster "
                "is up and that the kubeconfig's current context points at it: kubectl cluster-info"
            ) from exc
        except Exception as exc:
            explained = explain_api_error(exc)
            if explained is None:
                raise
            raise explained from exc


def wait_for_workers(client: Any, wanted: int, timeout: float, where: str, hint: str = "") -> int:
    """Wait until ``wanted`` workers joined the scheduler ``client`` talks to; return how many did.

    Raises:
        WorkersTimeoutError: fewer joined within ``timeout`` seconds (the message says how many).

    Example:
        >>> from distributed import Client, LocalCluster
        >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        ...     with Client(cluster) as client:
        ...         wait_for_workers(client, 1, timeout=30, where="the local cluster")
        1
    """
    deadline = time.monotonic() + timeout
    seen = len(client.scheduler_info()["workers"])
    while seen < wanted:
        if time.monotonic() >= deadline:
            raise WorkersTimeoutError(seen, wanted, timeout, where, hint)
        time.sleep(0.2)
        seen = len(client.scheduler_info()["workers"])
    return seen


class KubernetesBackend(ClosedOnExit):
    """A Dask cluster on Kubernetes for one search, started by the Dask operator.

    Args:
        resources: The parsed ``resources:`` block (``cluster: kubernetes``).
        name: The DaskCluster name (see :func:`hpnb.cluster.kubernetes_manifest.cluster_name_for`).
            A cluster of that name that already exists is connected to, not recreated.
        outlives_starter: the cluster runs the search's own driver (``detach: cluster``): closing
            only disconnects, and the operator deletes the cluster ``kubernetes.idle_timeout``
            seconds (default :data:`DRIVER_IDLE_TIMEOUT`) after its scheduler went idle, that is
            after the search ended, unless ``kubernetes.keep`` is true.

    :meth:`close` deletes a cluster that :meth:`start` created, unless ``kubernetes.keep`` is
    true; a cluster that already existed (kept by an earlier search) is only disconnected from.
    """

    def __init__(self, resources: Resources, name: str, *, outlives_starter: bool = False) -> None:
        self.resources = resources
        self.name = name
        options = resources.kubernetes
        self.namespace: str | None = options.get("namespace")
        self.keep = bool(options.get("keep", False))
        self.timeout = float(options.get("timeout", DEFAULT_TIMEOUT))
        self.outlives_starter = outlives_starter
        idle_default = DRIVER_IDLE_TIMEOUT if outlives_starter and not self.keep else 0
        self.idle_timeout = int(options.get("idle_timeout", idle_default))
        # bad input fails here, before any call
        self.manifest = cluster_manifest(resources, name, idle_timeout=self.idle_timeout)
        self.autoscaler = autoscaler_manifest(resources, name)
        self._cluster: Any = None
        self._client: Any = None

    def dry_run(self) -> str:
        """The manifests :meth:`start` would hand to the operator, as YAML."""
        return manifest_yaml(self.resources, self.name)

    def start(self) -> Any:
        """Create (or connect to) the cluster, wait for its workers, return a ``distributed.Client``.

        Raises:
            ClusterError: a subclass naming what is missing and how to fix it.
        """
        operator = require_kubernetes_extra()
        find_kube_credentials()
        found = check_api(self.name, self.namespace)
        self.namespace = found.namespace
        if found.cluster_exists:
            logger.warning(
                "DaskCluster %s exists in %s: connecting to it as it is", self.name, found.namespace
            )
        from distributed import Client

        try:
            self._cluster = operator.KubeCluster(
                custom_cluster_spec=self.manifest,
                namespace=self.namespace,
                # never delete a cluster that was there before (kept by an earlier search)
                shutdown_on_close=not (self.keep or found.cluster_exists or self.outlives_starter),
                resource_timeout=int(self.timeout),
                quiet=True,
            )
            if self.autoscaler is not None:
                self._cluster.adapt(*adapt_bounds(self.resources.kubernetes["adapt"]))
        except Exception as exc:
            raise self._explained(exc) from exc
        self._client = Client(self._cluster)
        try:
            wait_for_workers(
                self._client,
                self._workers_to_wait_for(),
                self.timeout,
                where=f"DaskCluster {self.name}",
                hint=_PENDING_HINT.format(name=self.name, namespace=self.namespace),
            )
        except WorkersTimeoutError:
            self.close()
            raise
        return self._client

    def scale(self, workers: int) -> None:
        """Run ``workers`` worker pods (turns adaptive scaling off)."""
        cluster = self._started()
        try:
            cluster.scale(int(workers))
        except Exception as exc:
            raise self._explained(exc) from exc

    def adapt(self, minimum: int, maximum: int) -> None:
        """Let the operator scale between ``minimum`` and ``maximum`` workers with the load."""
        if not 0 <= minimum <= maximum:
            raise ClusterError(f"adapt needs 0 <= minimum <= maximum (got {minimum}, {maximum})")
        cluster = self._started()
        try:
            cluster.adapt(minimum=int(minimum), maximum=int(maximum))
        except Exception as exc:
            raise self._explained(exc) from exc

    @property
    def dashboard_link(self) -> str | None:
        """The scheduler dashboard's address (port-forwarded when outside the cluster)."""
        return None if self._cluster is None else str(self._cluster.dashboard_link)

    def close(self) -> None:
        """Disconnect; delete the DaskCluster if this backend created it and ``keep`` is not set."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
            if self.outlives_starter and self.idle_timeout:
                logger.info("DaskCluster %s runs the search's driver; the operator deletes it %d s after "
                            "the search ends", self.name, self.idle_timeout)
            elif not cluster.shutdown_on_close:
                logger.warning(
                    "DaskCluster %s keeps running; delete it with: kubectl delete daskcluster %s -n %s",
                    self.name,
                    self.name,
                    self.namespace,
                )

    @property
    def in_cluster_address(self) -> str:
        """The scheduler's address as the cluster's own pods reach it (a driver on a worker)."""
        self._started()  # the namespace is the API's once started
        return scheduler_address_in_cluster(self.name, str(self.namespace))

    def _workers_to_wait_for(self) -> int:
        # with adapt the autoscaler may shrink an idle cluster to its minimum at once
        if self.autoscaler is not None:
            return adapt_bounds(self.resources.kubernetes["adapt"])[0]
        return replicas_for(self.resources)

    def _started(self) -> Any:
        if self._cluster is None:
            raise ClusterError(f"the Kubernetes cluster {self.name} is not running; start() it first")
        return self._cluster

    def _explained(self, exc: BaseException) -> ClusterError:
        explained = explain_api_error(exc)
        if explained is not None:
            return explained
        return ClusterError(f"starting DaskCluster {self.name} failed: {type(exc).__name__}: {exc}")
