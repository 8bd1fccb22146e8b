"""Per-trial resources on a cluster: which workers a local cluster starts for them, whether a
cluster's workers can hold a trial, and how many trials they hold at once.

A trial that takes ``resources.per_trial`` is submitted with those Dask resources; a worker
runs it only while that much of each is free on it. hpnb's local cluster advertises ``cpu``,
``memory`` and ``gpu``: with GPUs it starts one worker process per trial slot (a group of
``gpu`` devices, or one device shared ``1/gpu`` ways), each seeing only its devices through
``CUDA_VISIBLE_DEVICES``, set before any user code runs in it.

Example:
    >>> from hpnb.core.spec.resources import parse_resources
    >>> res = parse_resources({"per_trial": {"gpu": 0.5}, "gpus": [0, 1]})
    >>> [(w.env["CUDA_VISIBLE_DEVICES"], w.resources["gpu"]) for w in local_slots(res, gpus=("0", "1"))]
    [('0', 0.5), ('0', 0.5), ('1', 0.5), ('1', 0.5)]
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.cluster.cluster_errors import ClusterError
from hpnb.core.frozen import FrozenDict
from hpnb.core.spec.resources import Resources
from hpnb.core.spec.trial_resources import MORE_WORKERS, SLACK, TrialResources, amount_text, unfit_reason


@dataclass(frozen=True)
class WorkerSlot:
    """One worker process of a local cluster started for per-trial resources."""

    resources: Mapping[str, float] = field(default_factory=FrozenDict)
    env: Mapping[str, str] = field(default_factory=FrozenDict)


def detect_gpus() -> tuple[str, ...]:
    """This machine's GPUs: the ``CUDA_VISIBLE_DEVICES`` this process was started with, else the
    devices ``nvidia-smi -L`` lists, else none."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return tuple(part.strip() for part in visible.split(",") if part.strip() and part.strip() != "-1")
    if shutil.which("nvidia-smi") is None:
        return ()
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(line.split(":")[0].split()[1] for line in listed.stdout.splitlines()
                 if line.startswith("GPU ") and ":" in line)


def local_gpus(resources: Resources) -> tuple[str, ...]:
    """The GPU ids a local cluster hands out: ``resources.gpus`` (each checked against the GPUs
    found, when any are) or those found."""
    found = detect_gpus()
    if resources.gpus is None:
        return found
    wanted = tuple(str(i) for i in resources.gpus)
    unknown = [i for i in wanted if found and i not in found]
    if unknown:
        raise ClusterError(f"resources.gpus: no GPU {', '.join(unknown)} on this machine (it has "
                           f"{', '.join(found)}); allowed: ids among those")
    return wanted


def local_slots(resources: Resources, gpus: tuple[str, ...] | None = None) -> tuple[WorkerSlot, ...]:
    """The workers a local cluster starts so that trials get ``resources.per_trial``.

    Raises:
        ClusterError: a trial asks for more than this machine has, or for a resource a local
            cluster does not advertise; the message names the resource and what there is.
    """
    import psutil

    need = resources.per_trial
    custom = sorted(set(need.amounts) - {"cpu", "memory", "gpu"})
    if custom:
        raise ClusterError(f"resources.per_trial.{custom[0]}: a local cluster advertises cpu, memory and gpu "
                           f"only; allowed: a cluster whose workers advertise {custom[0]} "
                           f"(dask worker --resources {custom[0]}=N), or no {custom[0]}")
    groups = _gpu_groups(need, local_gpus(resources) if gpus is None else gpus)
    cores, memory = float(os.cpu_count() or 1), float(resources.memory_limit_bytes()
                                                     or psutil.virtual_memory().total)
    count = len(groups) if groups else resources.workers or _fitting(need, cores, memory)
    share = {"cpu": cores / count, "memory": memory / count}
    for name, total in (("cpu", cores), ("memory", memory)):
        if name in need.amounts and need.amounts[name] > share[name] + SLACK:
            raise ClusterError(f"resources.per_trial.{name}: a trial asks {need.raw[name]}, and each of the "
                               f"{count} workers this machine's {amount_text(name, total)} is shared among "
                               f"has {amount_text(name, share[name])}; allowed: at most that, or fewer "
                               "workers")
    slots = []
    for index in range(count):
        advertised = dict(share)
        env: dict[str, str] = {}
        if groups:
            advertised["gpu"] = need.gpu()
            env["CUDA_VISIBLE_DEVICES"] = ",".join(groups[index])
        slots.append(WorkerSlot(FrozenDict(advertised), FrozenDict(env)))
    return tuple(slots)


def _gpu_groups(need: TrialResources, gpus: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The devices of each worker: ``gpu`` devices each, or each device ``1/gpu`` times."""
    gpu = need.gpu()
    if gpu == 0:
        return []
    if not gpus:
        raise ClusterError(f"resources.per_trial.gpu: a trial asks {need.raw['gpu']} GPU, and this machine "
                           "has none (nvidia-smi lists none, CUDA_VISIBLE_DEVICES is not set); allowed: "
                           "resources.gpus: [ids], or no gpu")
    if gpu < 1:
        return [(device,) for device in gpus for _ in range(round(1 / gpu))]
    size = int(gpu)
    if size > len(gpus):
        raise ClusterError(f"resources.per_trial.gpu: a trial asks {size} GPUs, and this machine offers "
                           f"{len(gpus)} ({', '.join(gpus)}); allowed: at most {len(gpus)}")
    return [tuple(gpus[i : i + size]) for i in range(0, len(gpus) - size + 1, size)]


def _fitting(need: TrialResources, cores: float, memory: float) -> int:
    """Workers a machine of ``cores`` and ``memory`` gives trials that ask ``need`` (at least 1)."""
    fits = [cores / need.amounts["cpu"]] if "cpu" in need.amounts else [cores]
    if "memory" in need.amounts:
        fits.append(memory / need.amounts["memory"])
    return max(1, math.floor(min(fits) + SLACK))


def worker_resources(info: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """What each worker advertises, by address, from ``Client.scheduler_info()``."""
    return {address: {k: float(v) for k, v in (worker.get("resources") or {}).items()}
            for address, worker in info.get("workers", {}).items()}


def check_fits(need: TrialResources, advertised: Mapping[str, Mapping[str, float]],
               more: str = MORE_WORKERS) -> None:
    """Refuse per-trial resources that no worker of a cluster has (no workers yet: nothing to check).

    Raises:
        ClusterError: naming the resource, what a trial asks and what the workers offer.
    """
    reason = unfit_reason(need, advertised, more)
    if reason is not None:
        raise ClusterError(reason)


def kubernetes_advertised(resources: Resources) -> dict[str, float]:
    """What each Kubernetes worker advertises for per-trial resources: what its limits (else its
    requests) give it, ``nvidia.com/gpu`` or ``amd.com/gpu`` as ``gpu``; nothing without ``per_trial``.

    Raises:
        ClusterError: a trial asks for a resource the worker spec does not give, or for more.

    Example:
        >>> from hpnb.core.spec.resources import parse_resources
        >>> spec = parse_resources({"cluster": "kubernetes", "per_trial": {"gpu": 1},
        ...                         "limits": {"nvidia.com/gpu": 2, "cpu": "4"}})
        >>> sorted(kubernetes_advertised(spec).items())
        [('cpu', 4.0), ('gpu', 2.0)]
    """
    if not resources.per_trial:
        return {}
    given = {**resources.requests, **resources.limits}
    advertised: dict[str, float] = {}
    for name, quantity in given.items():
        key = "gpu" if name in ("nvidia.com/gpu", "amd.com/gpu") else name
        if key in ("cpu", "memory", "gpu"):
            advertised[key] = advertised.get(key, 0.0) + quantity.value
    check_fits(resources.per_trial, {"the worker spec": advertised},
               more="resources.limits that give each worker more (cpu, memory, nvidia.com/gpu)")
    return advertised
