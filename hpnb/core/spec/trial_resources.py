"""What one trial needs: ``resources.per_trial`` (and the GPUs of a local cluster, ``resources.gpus``).

Amounts become Dask worker resources of the same names: ``cpu`` in cores, ``memory`` in bytes,
``gpu`` in devices (a fraction ``1/k`` shares one device among ``k`` trials), and any other
name (a licence, a disk) in its own unit, which the cluster's workers must advertise.

A trial may span several workers: ``workers: N`` and ``procs_per_worker: P`` make it N x P ranks,
N workers each running P of them; the amounts are then what each of its workers holds
(:mod:`hpnb.core.spec.trial_workers` reads and checks these two).

Example:
    >>> need = parse_per_trial({"cpu": 2, "gpu": 0.5, "memory": "4Gi"}, "resources.per_trial")
    >>> need.amounts["gpu"], need.amounts["memory"], need.describe()
    (0.5, 4294967296.0, 'cpu=2 gpu=0.5 memory=4Gi')
    >>> gang = parse_per_trial({"workers": 2, "procs_per_worker": 2, "gpu": 1}, "resources.per_trial")
    >>> gang.ranks, gang.is_gang, gang.describe()
    (4, True, 'workers=2 procs_per_worker=2 gpu=1')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.frozen import FrozenDict
from hpnb.core.spec.quantity import parse_quantity
from hpnb.core.spec.trial_workers import ALIASES as _RANK_ALIASES
from hpnb.core.spec.trial_workers import RESERVED, parse_procs_per_worker, parse_workers, worker_counts
from hpnb.core.spec.values import as_int, as_mapping

if TYPE_CHECKING:
    from hpnb.core.space import SearchSpace

#: the resources every cluster kind hpnb starts advertises; other names are the user's own
KNOWN = ("cpu", "gpu", "memory")
_CUSTOM = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,62}$")
_ALIASES = {"gpus": "gpu", "nvidia.com/gpu": "gpu", "cpus": "cpu", "mem": "memory", **_RANK_ALIASES}
#: how far a typed fraction may be from 1/k (0.33 is a third)
_FRACTION_TOLERANCE = 0.02
#: a worker holds a trial when it has this much less than asked at most (floating shares of a GPU)
SLACK = 1e-9


@dataclass(frozen=True)
class TrialResources:
    """What one trial holds while it runs: its workers, its ranks, and each worker's amounts.

    Attributes:
        amounts: the amount of each resource a trial holds on each of its workers, by Dask
            resource name (``memory`` in bytes).
        raw: each amount as written.
        workers: the workers a trial spans (1: today's one-worker trial).
        procs_per_worker: the processes (ranks) a trial runs on each of its workers.
        workers_parameter: the parameter whose value is a trial's number of workers, when
            ``workers: {parameter: NAME}`` (``workers`` is then 1 and unused).

    Example:
        >>> need = TrialResources(workers_parameter="nodes", procs_per_worker=2)
        >>> need.workers_for({"nodes": 3}), need.ranks_for({"nodes": 3}), need.describe()
        (3, 6, 'workers=parameter:nodes procs_per_worker=2')
    """

    amounts: Mapping[str, float] = field(default_factory=FrozenDict)
    raw: Mapping[str, str] = field(default_factory=FrozenDict)
    workers: int = 1
    procs_per_worker: int = 1
    workers_parameter: str | None = None

    def __bool__(self) -> bool:
        """Whether a trial asks Dask resources of its workers (its rank counts aside)."""
        return bool(self.amounts)

    @property
    def ranks(self) -> int:
        """The ranks of a trial, ``workers x procs_per_worker`` (with a workers parameter: per
        worker; see :meth:`ranks_for`)."""
        return self.workers * self.procs_per_worker

    @property
    def is_gang(self) -> bool:
        """Whether a trial may run as several ranks or on several workers."""
        return self.ranks > 1 or self.workers > 1 or self.workers_parameter is not None

    @property
    def is_empty(self) -> bool:
        """Whether this says nothing beyond the default: one thread of one worker."""
        return not self.amounts and not self.is_gang

    def workers_for(self, params: Mapping[str, Any]) -> int:
        """The workers of the trial whose parameters are ``params``.

        Raises:
            KeyError: the workers parameter is not among ``params``.
        """
        if self.workers_parameter is None:
            return self.workers
        return int(params[self.workers_parameter])

    def widest(self, space: SearchSpace) -> int:
        """The most workers one trial of a search over ``space`` spans (with a workers parameter,
        its largest value)."""
        if self.workers_parameter is None:
            return self.workers
        counts = worker_counts(space[self.workers_parameter])
        return counts[1] if counts else 1

    def ranks_for(self, params: Mapping[str, Any]) -> int:
        """The ranks of the trial whose parameters are ``params``."""
        return self.workers_for(params) * self.procs_per_worker

    def describe(self) -> str:
        counts = []
        if self.workers_parameter is not None:
            counts.append(f"workers=parameter:{self.workers_parameter}")
        elif self.workers != 1:
            counts.append(f"workers={self.workers}")
        if self.procs_per_worker != 1:
            counts.append(f"procs_per_worker={self.procs_per_worker}")
        return " ".join([*counts, *(f"{name}={self.raw[name]}" for name in sorted(self.amounts))])

    def gpu(self) -> float:
        """GPUs a trial takes on each of its workers (0 without ``gpu``)."""
        return float(self.amounts.get("gpu", 0.0))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.workers_parameter is not None:
            out["workers"] = {"parameter": self.workers_parameter}
        elif self.workers != 1:
            out["workers"] = self.workers
        if self.procs_per_worker != 1:
            out["procs_per_worker"] = self.procs_per_worker
        return {**out, **self.raw}


def parse_per_trial(data: Any, path: str) -> TrialResources:
    """Validate ``resources.per_trial`` (None: a trial takes one worker thread, nothing more)."""
    if data is None:
        return TrialResources()
    data = as_mapping(data, path, allowed="a mapping such as {cpu: 2, gpu: 1, memory: 4Gi}")
    amounts: dict[str, float] = {}
    raw: dict[str, str] = {}
    for name, value in data.items():
        if name in RESERVED:
            continue
        where = f"{path}.{name}"
        if name in _ALIASES or not _CUSTOM.match(str(name)):
            raise SpecError(where, "unknown resource name", value=name,
                            allowed="cpu, gpu, memory, workers, procs_per_worker or a name of your own "
                                    "that the workers advertise (letters, digits, '_', '.', '-')",
                            suggestion=_ALIASES.get(name) or closest(str(name), KNOWN))
        quantity = parse_quantity(value, where, kind="memory" if name == "memory" else
                                  "cpu" if name == "cpu" else "other")
        if quantity.value <= 0:
            raise SpecError(where, "must be more than 0", value=value, allowed="a positive amount")
        amount = _gpu_amount(quantity.value, where, value) if name == "gpu" else quantity.value
        amounts[name], raw[name] = amount, quantity.raw
    workers, parameter = parse_workers(data.get("workers", 1), f"{path}.workers")
    procs = parse_procs_per_worker(data.get("procs_per_worker", 1), f"{path}.procs_per_worker")
    return TrialResources(FrozenDict(amounts), FrozenDict(raw), workers, procs, parameter)


def _gpu_amount(value: float, path: str, typed: Any) -> float:
    """Whole GPUs, or a share 1/k of one (0.33 is read as 1/3)."""
    if value >= 1:
        if value != int(value):
            raise SpecError(path, "more than one GPU comes in whole GPUs", value=typed,
                            allowed="a whole number (1, 2, 4) or a share 1/k of one GPU (0.5, 0.25)")
        return value
    share = round(1 / value)
    if abs(value * share - 1) > _FRACTION_TOLERANCE:
        raise SpecError(path, "a fraction of a GPU must share it evenly", value=typed,
                        allowed=f"1/k of one GPU: 0.5, 0.33, 0.25, ... (nearest: {1 / share:.3g} or "
                                f"{1 / (share + 1 if value * share < 1 else share - 1):.3g})")
    return 1 / share


def parse_gpus(data: Any, path: str) -> tuple[int, ...] | None:
    """``resources.gpus``: the device ids a local cluster hands out (None: detect them)."""
    if data is None:
        return None
    if isinstance(data, (str, bytes)) or not isinstance(data, (list, tuple)):
        raise SpecError(path, "must be a list of GPU ids", value=data, allowed="a list such as [0, 1, 2, 3]")
    ids = tuple(as_int(item, f"{path}.{i}", minimum=0) for i, item in enumerate(data))
    if not ids:
        raise SpecError(path, "names no GPU", value=list(data), allowed="a list of at least one GPU id")
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise SpecError(path, "names a GPU twice", value=list(data), allowed=f"each id once (repeated: "
                        f"{', '.join(map(str, repeated))})")
    return ids


def trial_slots(need: TrialResources, threads: Mapping[str, int],
                advertised: Mapping[str, Mapping[str, float]]) -> tuple[int, str | None]:
    """How many trials the workers hold at once, and the resource that holds the fewest (None
    without per-trial resources).

    Example:
        >>> need = parse_per_trial({"gpu": 1, "cpu": 1}, "per_trial")
        >>> trial_slots(need, {"a": 4, "b": 4}, {"a": {"gpu": 2.0, "cpu": 4}, "b": {"gpu": 1.0, "cpu": 4}})
        (3, 'gpu')
    """
    total = 0
    bound = dict.fromkeys(need.amounts, 0)
    for address, count in threads.items():
        has = advertised.get(address, {})
        fits = {name: min(count, math.floor(has.get(name, 0.0) / amount + SLACK))
                for name, amount in need.amounts.items()}
        total += min([count, *fits.values()])
        for name, n in fits.items():
            bound[name] += n
    return total, min(bound, key=lambda name: bound[name], default=None)


#: what a refusal suggests on a cluster of workers that advertise resources.
MORE_WORKERS = "workers started with more (dask worker --resources {name}=N)"


def unfit_reason(need: TrialResources, advertised: Mapping[str, Mapping[str, float]],
                 more: str = MORE_WORKERS) -> str | None:
    """Why no worker of ``advertised`` (resources by worker) can run a trial that asks ``need``,
    naming the resource, what a trial asks and what the workers offer; None when one can, or
    when there are no workers yet.

    Example:
        >>> need = parse_per_trial({"gpu": 2}, "per_trial")
        >>> print(unfit_reason(need, {"a": {"gpu": 1.0}})[:60])
        resources.per_trial.gpu: a trial asks 2, and the cluster's 1
    """
    if not need or not advertised or any(_holds(has, need) for has in advertised.values()):
        return None
    for name, amount in sorted(need.amounts.items()):
        offered = sorted({has.get(name, 0.0) for has in advertised.values()})
        if offered[-1] + SLACK < amount:
            what = "none of them advertises it" if offered == [0.0] else \
                f"the most a worker has is {amount_text(name, offered[-1])}"
            return (f"resources.per_trial.{name}: a trial asks {need.raw[name]}, and the cluster's "
                    f"{len(advertised)} worker(s) offer less: {what}; allowed: at most that, or "
                    f"{more.format(name=name)}")
    return (f"resources.per_trial: no worker has all of {need.describe()} at once "
            f"(workers offer: {_offers(advertised)})")


def _holds(has: Mapping[str, float], need: TrialResources) -> bool:
    return all(has.get(name, 0.0) + SLACK >= amount for name, amount in need.amounts.items())


def _offers(advertised: Mapping[str, Mapping[str, float]]) -> str:
    kinds = sorted({" ".join(f"{k}={v:g}" for k, v in sorted(has.items())) or "nothing"
                    for has in advertised.values()})
    return "; ".join(kinds)


def amount_text(name: str, value: float) -> str:
    """An amount of resource ``name`` as a person reads it ("4 GiB", "2 cores", "1 gpu")."""
    if name == "memory":
        return f"{value / 2**30:.3g} GiB"
    return f"{value:g} core{'s' if value != 1 else ''}" if name == "cpu" else f"{value:g} {name}"
