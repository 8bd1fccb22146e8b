"""What ``%%hpsearch --dry-run`` prints: the validated plan and the cluster it would use.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec("metric: loss\\nparameters:\\n  lr: {min: 0.1, max: 1.0}")
    >>> print(format_plan(spec, objective_name="train", name="demo", namespace={}).splitlines()[0])
    dry run of 'demo': nothing started
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from hpnb.core.objectives import goal
from hpnb.core.warm_start import describe_warm_start

if TYPE_CHECKING:
    from hpnb.core.spec import ExperimentSpec


def describe_cluster(resources: Any, name: str, namespace: Mapping[str, Any]) -> str:
    """Which cluster the search would run on; for Kubernetes, with the manifest it would apply."""
    cluster = resources.cluster
    if cluster == "local":
        from hpnb.cluster.connect import LocalShape

        shape = LocalShape.from_resources(resources)
        return (f"a local Dask cluster on this machine: {shape.workers} worker process(es) x "
                f"{shape.threads_per_worker} thread(s), memory limit {shape.memory_limit}")
    if "://" in cluster:
        return f"the running Dask scheduler at {cluster}"
    if cluster == "kubernetes":
        from hpnb.cluster.kubernetes_manifest import cluster_name_for, manifest_yaml

        cluster_name = cluster_name_for(name)
        return (f"a DaskCluster {cluster_name!r} on Kubernetes (Dask operator), manifest:\n"
                + manifest_yaml(resources, cluster_name).rstrip())
    if cluster not in namespace:
        raise UsageError(f"resources.cluster: no Client or cluster named {cluster!r} in the notebook; "
                         "allowed: local, kubernetes, tcp://host:port, or a name defined in the notebook")
    return f"the {type(namespace[cluster]).__name__} {cluster!r} from the notebook"


def format_plan(spec: ExperimentSpec, *, objective_name: str, name: str | None,
                namespace: Mapping[str, Any]) -> str:
    """The plan of a search as text: objective, goal, budget, parameters, early stopping, cluster."""
    shown_name = name or spec.name
    parallel = spec.parallel if spec.parallel is not None else "the cluster's worker slots"
    seed = "" if spec.seed is None else f", seed {spec.seed}"
    lines = [
        f"dry run of {shown_name!r}: nothing started" if shown_name else "dry run: nothing started",
        f"objective:      {objective_name}",
        f"goal:           {goal(spec.objectives)}",
        f"strategy:       {spec.strategy.describe()}",
        f"trials:         {spec.trials}, {parallel} at once{seed}",
        f"early stopping: {spec.early_stopping.describe()}",
        "parameters:",
    ]
    width = max((len(p.name) for p in spec.space), default=0)
    lines.extend(f"  {p.name:<{width}}  {p.describe()}" for p in spec.space)
    start = describe_warm_start(spec)
    if start:
        lines.append(f"warm start:     {start}")
    lines.append(f"resources:      {spec.resources.describe()}")
    cluster = describe_cluster(spec.resources, shown_name or objective_name, namespace)
    lines.append(f"cluster:        {cluster}")
    return "\n".join(lines)
