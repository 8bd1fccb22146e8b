"""Where trials run: the ``resources:`` section of a spec.

Example:
    >>> res = parse_resources({"workers": 2, "limits": {"cpu": "2", "memory": "4Gi"}})
    >>> res.memory_limit_bytes(), res.cpu_limit()
    (4294967296, 2.0)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.frozen import FrozenDict, freeze, thaw
from hpnb.core.spec.quantity import Quantity, QuantityKind, parse_quantity
from hpnb.core.spec.trial_resources import TrialResources, parse_gpus, parse_per_trial
from hpnb.core.spec.trial_workers import check_workers_parameter
from hpnb.core.spec.values import as_bool, as_float, as_int, as_mapping, as_text, check_keys, parse_duration

RESOURCE_KEYS = ("cluster", "workers", "threads_per_worker", "requests", "limits", "adapt", "kubernetes",
                 "per_trial", "gpus", "wait_for_workers", "max_captured")
#: how long a search waits with no worker able to run its trials before it stops, by default.
DEFAULT_WAIT_FOR_WORKERS = 600.0
#: the largest objective (with what it captures, pickled) a search sends to its workers, by default.
DEFAULT_MAX_CAPTURED = 4 * 2**30
KUBERNETES_KEYS = ("image", "namespace", "env", "node_selector", "tolerations", "service_account",
                   "adapt", "keep", "timeout", "idle_timeout")
TOLERATION_KEYS = ("key", "operator", "value", "effect", "tolerationSeconds")
CLUSTER_KINDS = ("local", "kubernetes")
_CLUSTER_ALLOWED = ("local, kubernetes, a scheduler address (tcp://host:8786) "
                    "or the name of a Client in the notebook")
_ADDRESS = re.compile(r"^(tcp|tls|ws|wss|ucx|inproc)://[^\s/]+$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_RESOURCE_NAME = re.compile(r"^(?:[a-z0-9.-]+/)?[A-Za-z0-9][-A-Za-z0-9_.]*$")
_STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "amd.com/gpu")

if TYPE_CHECKING:
    from hpnb.core.space import SearchSpace


@dataclass(frozen=True)
class Resources:
    """The cluster trials run on and what each worker gets."""

    cluster: str = "local"
    workers: int | None = None
    threads_per_worker: int = 1
    requests: Mapping[str, Quantity] = field(default_factory=FrozenDict)
    limits: Mapping[str, Quantity] = field(default_factory=FrozenDict)
    kubernetes: Mapping[str, Any] = field(default_factory=FrozenDict)
    #: ``{minimum, maximum}`` workers for a local cluster that grows and shrinks with the search
    #: (a Kubernetes cluster takes ``kubernetes.adapt``).
    adapt: Mapping[str, int] | None = None
    #: what one trial holds while it runs (Dask worker resources); empty: one worker thread
    per_trial: TrialResources = field(default_factory=TrialResources)
    #: the GPU ids a local cluster hands out to its workers (None: those it detects)
    gpus: tuple[int, ...] | None = None
    #: seconds the search waits with no worker able to run its trials before it is interrupted
    wait_for_workers: float = DEFAULT_WAIT_FOR_WORKERS
    #: bytes the pickled objective with what it captures may hold (it travels to every worker)
    max_captured: int = DEFAULT_MAX_CAPTURED

    def memory_limit_bytes(self) -> int | None:
        """The memory limit of a worker in bytes (rounded up), or None."""
        return _bytes(self.limits.get("memory"))

    def memory_request_bytes(self) -> int | None:
        return _bytes(self.requests.get("memory"))

    def cpu_limit(self) -> float | None:
        """The CPU limit of a worker in cores, or None."""
        quantity = self.limits.get("cpu")
        return None if quantity is None else quantity.value

    def cpu_request(self) -> float | None:
        quantity = self.requests.get("cpu")
        return None if quantity is None else quantity.value

    def describe(self) -> str:
        """A one-line summary, e.g. ``local, 4 worker(s), 1 thread(s) each, limits cpu=2 memory=4Gi``."""
        workers = "default number of workers" if self.workers is None else f"{self.workers} worker(s)"
        parts = [self.cluster, f"{workers}, {self.threads_per_worker} thread(s) each"]
        for title, amounts in (("requests", self.requests), ("limits", self.limits)):
            if amounts:
                parts.append(title + " " + " ".join(f"{k}={q.raw}" for k, q in amounts.items()))
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cluster": self.cluster, "workers": self.workers,
                               "threads_per_worker": self.threads_per_worker}
        for title, amounts in (("requests", self.requests), ("limits", self.limits)):
            if amounts:
                out[title] = {key: q.raw for key, q in amounts.items()}
        if self.kubernetes:
            out["kubernetes"] = thaw(self.kubernetes)
        if self.adapt:
            out["adapt"] = dict(self.adapt)
        if not self.per_trial.is_empty:
            out["per_trial"] = self.per_trial.to_dict()
        if self.gpus is not None:
            out["gpus"] = list(self.gpus)
        if self.wait_for_workers != DEFAULT_WAIT_FOR_WORKERS:
            out["wait_for_workers"] = self.wait_for_workers
        if self.max_captured != DEFAULT_MAX_CAPTURED:
            out["max_captured"] = self.max_captured
        return out


def _bytes(quantity: Quantity | None) -> int | None:
    if quantity is None:
        return None
    whole = int(quantity.value)
    return whole if whole == quantity.value else whole + 1


def parse_resources(data: Any, path: str = "resources", space: SearchSpace | None = None) -> Resources:
    """Validate a ``resources:`` mapping (None gives the defaults).

    With the search's ``space``, ``per_trial.workers: {parameter: NAME}`` is checked against it
    (without, that check is left to the caller).
    """
    if data is None:
        return Resources()
    resources = _parse_resources(as_mapping(data, path), path)
    _check_trial_workers(resources, space, f"{path}.per_trial")
    return resources


def _check_trial_workers(resources: Resources, space: SearchSpace | None, path: str) -> None:
    """A trial's workers and processes: its parameter in ``space``, and within a local cluster."""
    need = resources.per_trial
    if need.workers_parameter is None:
        most = need.workers
    elif space is None:
        most = 1  # only the space says how many: parse_spec checks it
    else:
        most = check_workers_parameter(need.workers_parameter, space, path)
    _check_local_cluster(resources, most, path)


def _check_local_cluster(resources: Resources, most_workers: int, path: str) -> None:
    """Refuse a trial larger than the local cluster hpnb starts will ever be: more workers than
    ``resources.workers`` (or ``adapt.maximum``), more processes than a worker's threads. Other
    clusters' sizes are known at start only, and checked there."""
    need, threads = resources.per_trial, resources.threads_per_worker
    if resources.cluster != "local":
        return
    if need.procs_per_worker > threads:
        raise SpecError(f"{path}.procs_per_worker", f"{need.procs_per_worker} processes per worker, but "
                        f"each worker of the local cluster has {threads} thread(s) "
                        "(resources.threads_per_worker)", value=need.procs_per_worker,
                        allowed=f"at most {threads}, or raise resources.threads_per_worker")
    size, field = (resources.adapt["maximum"], "resources.adapt.maximum") if resources.adapt else \
        (resources.workers, "resources.workers")
    if size is not None and most_workers > size:
        asked = (f"a trial may ask {most_workers} workers (parameters.{need.workers_parameter})"
                 if need.workers_parameter else f"{most_workers} workers per trial")
        raise SpecError(f"{path}.workers", f"{asked}, but the local cluster has {size} ({field})",
                        value=need.to_dict().get("workers", 1),
                        allowed=f"at most {size}, or a larger {field}")


def _parse_resources(data: Mapping[str, Any], path: str) -> Resources:
    check_keys(data, path, RESOURCE_KEYS)
    cluster = parse_cluster(data.get("cluster", "local"), f"{path}.cluster")
    workers = data.get("workers")
    requests = _parse_amounts(data.get("requests"), f"{path}.requests")
    limits = _parse_amounts(data.get("limits"), f"{path}.limits")
    for key, request in requests.items():
        limit = limits.get(key)
        if limit is not None and request.value > limit.value:
            raise SpecError(f"{path}.requests.{key}", "is larger than its limit", value=request.raw,
                            allowed=f"at most the limit {limit.raw}")
    adapt = data.get("adapt")
    if adapt is not None and cluster != "local":
        raise SpecError(f"{path}.adapt", "applies to the local cluster hpnb starts", value=cluster,
                        allowed="cluster: local (for Kubernetes use kubernetes.adapt)")
    kubernetes = data.get("kubernetes")
    if kubernetes is not None and cluster != "kubernetes":
        raise SpecError(f"{path}.kubernetes", "only applies with cluster: kubernetes", value=cluster,
                        allowed="cluster: kubernetes, or remove the kubernetes section")
    gpus = parse_gpus(data.get("gpus"), f"{path}.gpus")
    if gpus is not None and cluster != "local":
        raise SpecError(f"{path}.gpus", "applies to the local cluster hpnb starts", value=cluster,
                        allowed="cluster: local (other clusters' workers say which GPUs they have)")
    return Resources(
        cluster=cluster,
        workers=None if workers is None else as_int(workers, f"{path}.workers", minimum=1),
        threads_per_worker=as_int(data.get("threads_per_worker", 1), f"{path}.threads_per_worker",
                                  minimum=1),
        requests=FrozenDict(requests),
        limits=FrozenDict(limits),
        kubernetes=freeze(_parse_kubernetes(kubernetes, f"{path}.kubernetes")),
        adapt=None if adapt is None else FrozenDict(_parse_adapt(adapt, f"{path}.adapt")),
        per_trial=parse_per_trial(data.get("per_trial"), f"{path}.per_trial"),
        gpus=gpus,
        wait_for_workers=parse_duration(data.get("wait_for_workers", DEFAULT_WAIT_FOR_WORKERS),
                                        f"{path}.wait_for_workers"),
        max_captured=_parse_size(data.get("max_captured", DEFAULT_MAX_CAPTURED), f"{path}.max_captured"),
    )


def _parse_size(value: Any, path: str) -> int:
    """A size in bytes: a number, or a quantity such as ``8Gi`` or ``500M``."""
    size = _bytes(parse_quantity(value, path, kind="memory"))
    if not size:
        raise SpecError(path, "must be more than 0 bytes", value=value, allowed="a size such as 8Gi or 500M")
    return size


def parse_cluster(value: Any, path: str) -> str:
    """``local``, ``kubernetes``, a scheduler address, or a notebook variable name.

    A name one typo away from ``local``/``kubernetes`` is refused as the likely slip it is.
    """
    text = as_text(value, path, allowed=_CLUSTER_ALLOWED)
    if text in CLUSTER_KINDS or _ADDRESS.match(text):
        return text
    if "://" in text or ":" in text:
        raise SpecError(path, "is not a scheduler address", value=text,
                        allowed="scheme://host:port with scheme tcp, tls, ws, wss, ucx or inproc")
    suggestion = closest(text, CLUSTER_KINDS)
    if suggestion is not None or not _IDENTIFIER.match(text):
        raise SpecError(path, "unknown cluster", value=text, allowed=_CLUSTER_ALLOWED, suggestion=suggestion)
    return text


def _kind_of(resource: str) -> QuantityKind:
    return resource if resource in ("cpu", "memory") else "other"  # type: ignore[return-value]


def _parse_amounts(data: Any, path: str) -> dict[str, Quantity]:
    if data is None:
        return {}
    data = as_mapping(data, path, allowed="a mapping such as {cpu: \"2\", memory: 4Gi}")
    amounts: dict[str, Quantity] = {}
    for name, value in data.items():
        if not _RESOURCE_NAME.match(name) or ("/" not in name and name not in _STANDARD_RESOURCES
                                              and not name.startswith("hugepages-")):
            suggestion = "nvidia.com/gpu" if name.lower() in ("gpu", "gpus") else closest(
                name, _STANDARD_RESOURCES)
            raise SpecError(f"{path}.{name}", "unknown resource", value=name,
                            allowed="cpu, memory, ephemeral-storage, hugepages-<size>, or a "
                                    "domain-prefixed name such as nvidia.com/gpu",
                            suggestion=suggestion)
        quantity = parse_quantity(value, f"{path}.{name}", kind=_kind_of(name))
        if "/" in name and quantity.value != int(quantity.value):
            raise SpecError(f"{path}.{name}", "extended resources come in whole units", value=value,
                            allowed="a whole number such as 1")
        amounts[name] = quantity
    return amounts


def _string_map(data: Any, path: str) -> dict[str, str]:
    data = as_mapping(data, path)
    out: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, (Mapping, list, tuple)) or value is None:
            raise SpecError(f"{path}.{key}", "must be a single value", value=value,
                            allowed="a string, number or boolean")
        out[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def _parse_toleration(item: Any, path: str) -> dict[str, Any]:
    item = as_mapping(item, path)
    check_keys(item, path, TOLERATION_KEYS)
    out: dict[str, Any] = {}
    for key in ("key", "value"):
        if key in item:
            out[key] = str(item[key])
    operator = item.get("operator", "Equal")
    if operator not in ("Equal", "Exists"):
        raise SpecError(f"{path}.operator", "unknown operator", value=operator, allowed=("Equal", "Exists"),
                        suggestion=closest(str(operator), ("Equal", "Exists")))
    out["operator"] = operator
    if "effect" in item:
        effects = ("NoSchedule", "PreferNoSchedule", "NoExecute")
        if item["effect"] not in effects:
            raise SpecError(f"{path}.effect", "unknown effect", value=item["effect"], allowed=effects,
                            suggestion=closest(str(item["effect"]), effects))
        out["effect"] = item["effect"]
    if "tolerationSeconds" in item:
        out["tolerationSeconds"] = as_int(item["tolerationSeconds"], f"{path}.tolerationSeconds", minimum=0)
    return out


def _parse_adapt(data: Any, path: str) -> dict[str, int]:
    data = as_mapping(data, path, allowed="{minimum: N, maximum: M}")
    check_keys(data, path, ("minimum", "maximum"))
    minimum = as_int(data.get("minimum", 0), f"{path}.minimum", minimum=0)
    if "maximum" not in data:
        raise SpecError(f"{path}.maximum", "is required", allowed="an integer >= minimum")
    maximum = as_int(data["maximum"], f"{path}.maximum", minimum=max(minimum, 1))
    return {"minimum": minimum, "maximum": maximum}


def _parse_kubernetes(data: Any, path: str) -> dict[str, Any]:
    if data is None:
        return {}
    data = as_mapping(data, path)
    check_keys(data, path, KUBERNETES_KEYS)
    out: dict[str, Any] = {}
    for key in ("image", "service_account"):
        if key in data:
            out[key] = as_text(data[key], f"{path}.{key}")
    if "namespace" in data:
        namespace = as_text(data["namespace"], f"{path}.namespace")
        if not _DNS_LABEL.match(namespace):
            raise SpecError(f"{path}.namespace", "is not a valid namespace name", value=namespace,
                            allowed="lower-case letters, digits and '-', at most 63 characters")
        out["namespace"] = namespace
    for key in ("env", "node_selector"):
        if key in data:
            out[key] = _string_map(data[key], f"{path}.{key}")
    if "tolerations" in data:
        items = data["tolerations"]
        if not isinstance(items, list):
            raise SpecError(f"{path}.tolerations", "must be a list", value=items,
                            allowed="a list of {key, operator, value, effect}")
        out["tolerations"] = [_parse_toleration(t, f"{path}.tolerations.{i}") for i, t in enumerate(items)]
    if "adapt" in data:
        out["adapt"] = _parse_adapt(data["adapt"], f"{path}.adapt")
    if "keep" in data:
        out["keep"] = as_bool(data["keep"], f"{path}.keep")
    if "timeout" in data:
        timeout = as_float(data["timeout"], f"{path}.timeout", allowed="seconds, a number > 0")
        if timeout <= 0:
            raise SpecError(f"{path}.timeout", "must be greater than 0", value=data["timeout"],
                            allowed="seconds, a number > 0")
        out["timeout"] = timeout
    if "idle_timeout" in data:
        out["idle_timeout"] = as_int(data["idle_timeout"], f"{path}.idle_timeout", minimum=0)
    return out
