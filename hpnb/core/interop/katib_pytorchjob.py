"""A trial that spans several workers as a Katib trial template running a Kubeflow PyTorchJob.

``resources.per_trial: {workers: N, procs_per_worker: P, gpu: G, cpu: C, memory: M}`` is written
as a PyTorchJob (``kubeflow.org/v1``) with one ``Master`` replica and ``N - 1`` ``Worker``
replicas, ``nprocPerNode: "P"``, and each replica's container limited to the per-worker amounts
(``nvidia.com/gpu``, ``cpu``, ``memory``); :func:`read_pytorchjob` reads such a template back.
Katib's Python SDK says the same with ``TrainerResources(num_workers=N, num_procs_per_worker=P,
resources_per_worker={...})``.

Example:
    >>> from hpnb.core.spec.trial_resources import parse_per_trial
    >>> need = parse_per_trial({"workers": 3, "procs_per_worker": 2, "gpu": 1}, "per_trial")
    >>> container = {"name": "pytorch", "image": "trainer:1",
    ...              "resources": {"limits": worker_limits(need, [])}}
    >>> job = pytorchjob(need, 3, container, retries=2)
    >>> replicas = job["spec"]["pytorchReplicaSpecs"]
    >>> replicas["Master"]["replicas"], replicas["Worker"]["replicas"], job["spec"]["nprocPerNode"]
    (1, 2, '2')
    >>> read_pytorchjob(job, "trialSpec", [])
    {'workers': 3, 'procs_per_worker': 2, 'gpu': 1}
    >>> container["resources"]
    {'limits': {'nvidia.com/gpu': 1}}
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_format import Note, describe
from hpnb.core.spec.values import as_mapping, number_from_text

if TYPE_CHECKING:
    from hpnb.core.spec.trial_resources import TrialResources

API_VERSION = "kubeflow.org/v1"
KIND = "PyTorchJob"
#: the container a PyTorchJob's replicas run (the training operator finds it by this name).
CONTAINER = "pytorch"
#: the label of the Master's pods, where Katib collects the trial's metrics (rank 0's).
PRIMARY_POD_LABELS = {"training.kubeflow.org/job-role": "master"}
#: when Katib counts a PyTorchJob trial as done, and as failed.
SUCCESS_CONDITION = 'status.conditions.#(type=="Succeeded")#|#(status=="True")#'
FAILURE_CONDITION = 'status.conditions.#(type=="Failed")#|#(status=="True")#'
#: per_trial name -> the Kubernetes resource of a container that holds it.
KUBERNETES_NAMES = {"gpu": "nvidia.com/gpu", "cpu": "cpu", "memory": "memory"}
_PER_TRIAL_NAMES = {kubernetes: ours for ours, kubernetes in KUBERNETES_NAMES.items()}
_REPLICA_TYPES = ("Master", "Worker")


def worker_limits(need: TrialResources, notes: list[Note]) -> dict[str, Any]:
    """The per-worker amounts as a container's ``limits``; what a container cannot hold is noted."""
    limits: dict[str, Any] = {}
    for name in sorted(need.amounts):
        raw = need.raw[name]
        if name not in KUBERNETES_NAMES:
            notes.append(Note(f"resources.per_trial.{name}", f"{describe(raw)} not carried: a container "
                                                             "holds cpu, memory and nvidia.com/gpu"))
        elif name == "gpu" and need.amounts[name] != int(need.amounts[name]):
            notes.append(Note("resources.per_trial.gpu", f"{describe(raw)} not carried: a container "
                                                         "holds whole GPUs"))
        else:
            limits[KUBERNETES_NAMES[name]] = int(need.amounts[name]) if name == "gpu" else raw
    return limits


def pytorchjob(need: TrialResources, workers: int, container: Mapping[str, Any], *, retries: int,
               timeout: float | None = None) -> dict[str, Any]:
    """A PyTorchJob of ``workers`` replicas (one Master), each running ``container``."""
    def replica(count: int) -> dict[str, Any]:
        return {"replicas": count, "restartPolicy": "OnFailure",
                "template": {"spec": {"containers": [copy.deepcopy(dict(container))]}}}

    replicas = {"Master": replica(1)}
    if workers > 1:
        replicas["Worker"] = replica(workers - 1)
    run_policy: dict[str, Any] = {"backoffLimit": retries}
    if timeout is not None:
        run_policy["activeDeadlineSeconds"] = math.ceil(timeout)
    return {"apiVersion": API_VERSION, "kind": KIND,
            "spec": {"nprocPerNode": str(need.procs_per_worker), "runPolicy": run_policy,
                     "pytorchReplicaSpecs": replicas}}


def is_pytorchjob(trial_spec: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether a trial template's ``trialSpec`` is a PyTorchJob."""
    return isinstance(trial_spec, Mapping) and trial_spec.get("kind") == KIND


def read_pytorchjob(trial_spec: Mapping[str, Any], path: str, notes: list[Note]) -> dict[str, Any]:
    """``resources.per_trial`` as a PyTorchJob ``trialSpec`` says it: its workers (the Master's and
    Workers' replicas), its processes per worker (``nprocPerNode``) and each worker's resources
    (the limits, else the requests, of the Master's container).

    Raises:
        SpecError: a count is not a whole number, naming the PyTorchJob field.
    """
    spec = as_mapping(trial_spec.get("spec"), f"{path}.spec", allowed="a PyTorchJob's spec")
    replicas_path = f"{path}.spec.pytorchReplicaSpecs"
    replicas = as_mapping(spec.get("pytorchReplicaSpecs"), replicas_path,
                          allowed="{Master: {replicas: 1, ...}, Worker: {replicas: N, ...}}")
    out: dict[str, Any] = {"workers": 0}
    for kind, item in replicas.items():
        where = f"{replicas_path}.{kind}"
        if kind not in _REPLICA_TYPES:
            raise SpecError(where, "is not a replica type of a PyTorchJob", value=kind,
                            allowed=", ".join(_REPLICA_TYPES))
        count = _replicas(as_mapping(item, where).get("replicas", 1), f"{where}.replicas")
        if kind == "Master" and count != 1:
            raise SpecError(f"{where}.replicas", "a PyTorchJob has one Master", value=count, allowed="1")
        out["workers"] += count
    if out["workers"] < 1:
        raise SpecError(replicas_path, "runs no replica", allowed="Master: {replicas: 1}, and Workers")
    out["procs_per_worker"] = _procs(spec.get("nprocPerNode", 1), f"{path}.spec.nprocPerNode", notes)
    first = "Master" if "Master" in replicas else "Worker"
    out.update(_amounts(replicas[first], f"{replicas_path}.{first}.template.spec.containers", notes))
    notes.append(Note(path, "the PyTorchJob's replicas, nprocPerNode and its container's resources are "
                            "read into resources.per_trial; its image, command, environment, volumes "
                            "and the rest are not carried: hpnb runs a Python function of the notebook "
                            "once per rank"))
    return {key: value for key, value in out.items() if (key, value) not in
            (("workers", 1), ("procs_per_worker", 1))}


def _replicas(value: Any, path: str) -> int:
    number = number_from_text(value) if isinstance(value, str) else value
    if isinstance(value, bool) or not isinstance(number, int) or number < 0:
        raise SpecError(path, "must be a whole number of replicas", value=value, allowed="an integer >= 0")
    return number


def _procs(value: Any, path: str, notes: list[Note]) -> int:
    """``nprocPerNode``: a whole number >= 1 (``auto``, ``cpu`` and ``gpu`` are noted, read as 1)."""
    if isinstance(value, str) and value.strip() in ("auto", "cpu", "gpu"):
        notes.append(Note(path, f"{describe(value)} not carried: hpnb needs the number of processes; "
                                "read as 1 (set resources.per_trial.procs_per_worker)"))
        return 1
    number = number_from_text(value) if isinstance(value, str) else value
    if isinstance(value, bool) or not isinstance(number, int) or number < 1:
        raise SpecError(path, "must be a number of processes per worker", value=value,
                        allowed="an integer >= 1 (as a string, \"2\"), auto, cpu or gpu")
    return number


def _amounts(replica: Any, path: str, notes: list[Note]) -> dict[str, Any]:
    """The per-worker amounts of the first container of a replica (limits, else requests)."""
    template = replica.get("template") if isinstance(replica, Mapping) else None
    pod = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod.get("containers") if isinstance(pod, Mapping) else None
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], Mapping):
        return {}
    resources = containers[0].get("resources")
    if not isinstance(resources, Mapping):
        return {}
    out: dict[str, Any] = {}
    for title in ("requests", "limits"):  # limits win
        amounts = resources.get(title)
        for name, value in (amounts.items() if isinstance(amounts, Mapping) else ()):
            where = f"{path}[0].resources.{title}.{name}"
            ours = _PER_TRIAL_NAMES.get(name)
            if ours is None:
                notes.append(Note(where, f"{describe(value)} not carried: hpnb gives a trial's workers cpu, "
                                         "memory and GPUs"))
                continue
            if ours in out and out[ours] != value:
                notes.append(Note(where, f"{describe(value)} read, and the request {describe(out[ours])} not "
                                         "carried: a trial's worker holds its limit"))
            out[ours] = value
    return out
