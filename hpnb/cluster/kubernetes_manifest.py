"""The Kubernetes resources a ``cluster: kubernetes`` search asks the Dask operator for.

:func:`cluster_manifest` turns a spec's ``resources`` block into one ``DaskCluster``
custom resource (``kubernetes.dask.org/v1``) and :func:`autoscaler_manifest` into a
``DaskAutoscaler`` when ``kubernetes.adapt`` is set. The layout (containers, ports,
probes, the scheduler Service) is the one ``dask_kubernetes.operator.make_cluster_spec``
produces; it is written out here so that ``--dry-run`` works without the Kubernetes
extra, and so that what the user asked for lands where it belongs:

* ``requests`` / ``limits`` (GPUs included) go to the worker containers only; the
  scheduler asks for :data:`SCHEDULER_REQUESTS` and has no limits.
* ``node_selector`` and ``tolerations`` go to the worker pods only (a GPU node pool
  should not host the scheduler); ``env`` and ``service_account`` go to both pods.
* workers run ``dask worker --nthreads <threads_per_worker> --memory-limit <limits.memory>``.
* the default image is the Dask image of the installed ``distributed`` version and of
  this Python's minor version, and hpnb itself is installed in the worker containers
  at start through the image's ``EXTRA_PIP_PACKAGES`` variable.

Nothing here talks to Kubernetes; :mod:`hpnb.cluster.kubernetes` does.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import yaml

from hpnb.cluster.trial_slots import kubernetes_advertised
from hpnb.core.errors import SpecError
from hpnb.core.kubernetes_names import kubernetes_name
from hpnb.core.spec.resources import Resources

API_VERSION = "kubernetes.dask.org/v1"
SCHEDULER_PORT = 8786
DASHBOARD_PORT = 8787
WORKER_DASHBOARD_PORT = 8788
DEFAULT_WORKERS = 1
SCHEDULER_REQUESTS: Mapping[str, str] = {"cpu": "500m", "memory": "1Gi"}
MAX_CLUSTER_NAME_LENGTH = 53  # "<name>-scheduler" must fit a 63-character Service name
_CLUSTER_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
# Requests of any other resource (nvidia.com/gpu, hugepages-2Mi, ...) are only
# accepted by the API server with an equal limit.
_OVERCOMMITTABLE = ("cpu", "memory", "ephemeral-storage")


def default_image() -> str:
    """The Dask image matching this client's ``distributed`` and Python versions.

    Scheduler, workers and client must run the same ``distributed`` version, and
    pickled functions travel best between equal Python minor versions.

    Example:
        >>> default_image().startswith("ghcr.io/dask/dask:")
        True
    """
    python = f"py{sys.version_info.major}.{sys.version_info.minor}"
    return f"ghcr.io/dask/dask:{metadata.version('distributed')}-{python}"


def hpnb_requirement() -> str:
    """The pip requirement that installs this hpnb version in a worker image."""
    return f"hpnb=={metadata.version('hpnb')}"


def cluster_name_for(experiment: str) -> str:
    """A valid DaskCluster name derived from an experiment name.

    Example:
        >>> cluster_name_for("MLP_lr search")
        'hpnb-mlp-lr-search'
    """
    return kubernetes_name(experiment, dots=False, prefix="hpnb-", limit=MAX_CLUSTER_NAME_LENGTH)


def check_cluster_name(name: str) -> None:
    """Raise :class:`SpecError` unless ``name`` can name a DaskCluster and its Service."""
    if len(name) > MAX_CLUSTER_NAME_LENGTH or not _CLUSTER_NAME.fullmatch(name):
        raise SpecError(
            "name",
            "is not a valid Kubernetes cluster name",
            value=name,
            allowed=(
                f"lowercase letters, digits and '-', starting with a letter, ending with a letter "
                f"or digit, at most {MAX_CLUSTER_NAME_LENGTH} characters"
            ),
        )


def replicas_for(resources: Resources) -> int:
    """How many worker pods the cluster starts with (``workers``, else ``adapt.minimum``, else 1)."""
    if resources.workers is not None:
        return int(resources.workers)
    adapt = resources.kubernetes.get("adapt")
    if adapt:
        return int(adapt.get("minimum", 0))
    return DEFAULT_WORKERS


def cluster_manifest(resources: Resources, name: str, *, idle_timeout: int = 0) -> dict[str, Any]:
    """The ``DaskCluster`` resource for ``resources``.

    Args:
        resources: The parsed ``resources:`` block.
        name: The DaskCluster name (see :func:`cluster_name_for`).
        idle_timeout: seconds the operator keeps the cluster once its scheduler is idle (0: until
            it is deleted).

    Raises:
        SpecError: a resource amount Kubernetes would reject, or a bad name.

    Example:
        >>> from hpnb.core.spec.resources import parse_resources
        >>> res = parse_resources({"cluster": "kubernetes", "workers": 2, "limits": {"memory": "4Gi"}})
        >>> manifest = cluster_manifest(res, "demo")
        >>> manifest["kind"], manifest["spec"]["worker"]["replicas"]
        ('DaskCluster', 2)
    """
    check_cluster_name(name)
    check_quantities(resources)
    options = resources.kubernetes
    image = str(options.get("image") or default_image())
    metadata_: dict[str, Any] = {"name": name}
    if options.get("namespace"):
        metadata_["namespace"] = str(options["namespace"])
    return {
        "apiVersion": API_VERSION,
        "kind": "DaskCluster",
        "metadata": metadata_,
        "spec": {
            "idleTimeout": int(idle_timeout),
            "worker": {"replicas": replicas_for(resources), "spec": _worker_pod(resources, image)},
            "scheduler": {"spec": _scheduler_pod(options, image), "service": _scheduler_service(name)},
        },
    }


def scheduler_address_in_cluster(name: str, namespace: str) -> str:
    """The address pods of the cluster reach its scheduler at (its Service's name in the cluster's DNS).

    Example:
        >>> scheduler_address_in_cluster("hpnb-mlp", "ml")
        'tcp://hpnb-mlp-scheduler.ml.svc:8786'
    """
    return f"tcp://{name}-scheduler.{namespace}.svc:{SCHEDULER_PORT}"


def autoscaler_manifest(resources: Resources, name: str) -> dict[str, Any] | None:
    """The ``DaskAutoscaler`` for ``kubernetes.adapt``, or None when adapt is not set.

    Example:
        >>> from hpnb.core.spec.resources import parse_resources
        >>> adapt = {"minimum": 1, "maximum": 8}
        >>> res = parse_resources({"cluster": "kubernetes", "kubernetes": {"adapt": adapt}})
        >>> autoscaler_manifest(res, "demo")["spec"]
        {'cluster': 'demo', 'minimum': 1, 'maximum': 8}
    """
    adapt = resources.kubernetes.get("adapt")
    if not adapt:
        return None
    check_cluster_name(name)
    minimum, maximum = adapt_bounds(adapt)
    metadata_: dict[str, Any] = {"name": name, "labels": {"dask.org/cluster-name": name}}
    if resources.kubernetes.get("namespace"):
        metadata_["namespace"] = str(resources.kubernetes["namespace"])
    return {
        "apiVersion": API_VERSION,
        "kind": "DaskAutoscaler",
        "metadata": metadata_,
        "spec": {"cluster": name, "minimum": minimum, "maximum": maximum},
    }


def adapt_bounds(adapt: Mapping[str, Any]) -> tuple[int, int]:
    """``(minimum, maximum)`` of a parsed ``adapt`` mapping (minimum defaults to 0)."""
    return int(adapt.get("minimum", 0)), int(adapt["maximum"])


def manifest_yaml(resources: Resources, name: str) -> str:
    """The manifests as YAML: the DaskCluster, then the DaskAutoscaler when adapt is set.

    Example:
        >>> from hpnb.core.spec.resources import parse_resources
        >>> res = parse_resources({"cluster": "kubernetes", "workers": 1})
        >>> manifest_yaml(res, "demo").splitlines()[0]
        'apiVersion: kubernetes.dask.org/v1'
    """
    documents = [cluster_manifest(resources, name)]
    autoscaler = autoscaler_manifest(resources, name)
    if autoscaler is not None:
        documents.append(autoscaler)
    return yaml.safe_dump_all(documents, sort_keys=False)


def check_quantities(resources: Resources) -> None:
    """Raise :class:`SpecError` for amounts the API server would reject.

    The spec parser already refuses requests above limits and fractional GPUs; what
    is left is Kubernetes' rule that a request of anything but cpu, memory and
    ephemeral-storage (GPUs, hugepages) needs an equal limit.
    """
    for resource, request in resources.requests.items():
        limit = resources.limits.get(resource)
        if resource not in _OVERCOMMITTABLE and (limit is None or limit.value != request.value):
            raise SpecError(
                f"resources.limits.{resource}",
                f"must be set and equal to resources.requests.{resource} ({request.raw}): "
                "Kubernetes takes GPUs and other extended resources from limits",
                value=None if limit is None else limit.raw,
            )


def _container_resources(resources: Resources) -> dict[str, dict[str, str]]:
    sections = {"requests": resources.requests, "limits": resources.limits}
    return {key: {name: q.raw for name, q in amounts.items()} for key, amounts in sections.items() if amounts}


def _env_list(env: Mapping[str, Any] | None) -> list[dict[str, str]]:
    return [{"name": str(key), "value": str(value)} for key, value in (env or {}).items()]


def _worker_env(options: Mapping[str, Any]) -> list[dict[str, str]]:
    env = _env_list(options.get("env"))
    if options.get("image"):
        return env  # a custom image brings its own hpnb
    for variable in env:
        if variable["name"] == "EXTRA_PIP_PACKAGES":
            if not re.search(r"(^|\s)hpnb\b", variable["value"]):
                variable["value"] = f"{hpnb_requirement()} {variable['value']}"
            return env
    return [*env, {"name": "EXTRA_PIP_PACKAGES", "value": hpnb_requirement()}]


def _worker_args(resources: Resources) -> list[str]:
    args = ["dask", "worker", "--name", "$(DASK_WORKER_NAME)", "--dashboard"]
    args += ["--dashboard-address", str(WORKER_DASHBOARD_PORT)]
    args += ["--nthreads", str(int(resources.threads_per_worker))]
    memory_limit = resources.memory_limit_bytes()
    if memory_limit is not None:
        args += ["--memory-limit", str(memory_limit)]
    advertised = kubernetes_advertised(resources)
    if advertised:  # what per-trial resources are counted against: what the limits give
        args += ["--resources", ",".join(f"{name}={int(amount) if amount == int(amount) else amount}"
                                         for name, amount in sorted(advertised.items()))]
    return args


def _pod_identity(options: Mapping[str, Any]) -> dict[str, Any]:
    account = options.get("service_account")
    return {"serviceAccountName": str(account)} if account else {}


def _worker_pod(resources: Resources, image: str) -> dict[str, Any]:
    options = resources.kubernetes
    container: dict[str, Any] = {"name": "worker", "image": image, "args": _worker_args(resources)}
    env = _worker_env(options)
    if env:
        container["env"] = env
    container_resources = _container_resources(resources)
    if container_resources:
        container["resources"] = container_resources
    container["ports"] = [_port("http-dashboard", WORKER_DASHBOARD_PORT)]
    pod: dict[str, Any] = {"containers": [container], **_pod_identity(options)}
    if options.get("node_selector"):
        pod["nodeSelector"] = {str(k): str(v) for k, v in options["node_selector"].items()}
    if options.get("tolerations"):
        pod["tolerations"] = [dict(toleration) for toleration in options["tolerations"]]
    return pod


def _scheduler_pod(options: Mapping[str, Any], image: str) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "scheduler",
        "image": image,
        "args": ["dask", "scheduler", "--host", "0.0.0.0"],
    }
    env = _env_list(options.get("env"))
    if env:
        container["env"] = env
    container["resources"] = {"requests": dict(SCHEDULER_REQUESTS)}
    container["ports"] = [_port("tcp-comm", SCHEDULER_PORT), _port("http-dashboard", DASHBOARD_PORT)]
    container["readinessProbe"] = _health_probe(initialDelaySeconds=0, periodSeconds=1, timeoutSeconds=300)
    container["livenessProbe"] = _health_probe(initialDelaySeconds=15, periodSeconds=20)
    return {"containers": [container], **_pod_identity(options)}


def _health_probe(**timing: int) -> dict[str, Any]:
    return {"httpGet": {"port": "http-dashboard", "path": "/health"}, **timing}


def _port(name: str, number: int) -> dict[str, Any]:
    return {"name": name, "containerPort": number, "protocol": "TCP"}


def _scheduler_service(name: str) -> dict[str, Any]:
    return {
        "type": "ClusterIP",
        "selector": {"dask.org/cluster-name": name, "dask.org/component": "scheduler"},
        "ports": [
            {"name": port, "protocol": "TCP", "port": number, "targetPort": port}
            for port, number in (("tcp-comm", SCHEDULER_PORT), ("http-dashboard", DASHBOARD_PORT))
        ],
    }
