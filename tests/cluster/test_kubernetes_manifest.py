"""The DaskCluster / DaskAutoscaler manifests built from a ``resources:`` block."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import yaml

from hpnb.cluster.cluster_errors import ClusterError
from hpnb.cluster.kubernetes_manifest import (
    SCHEDULER_REQUESTS,
    autoscaler_manifest,
    check_cluster_name,
    cluster_manifest,
    cluster_name_for,
    manifest_yaml,
)
from hpnb.core.errors import SpecError
from hpnb.core.spec.resources import Resources, parse_resources

NEEDS_EXTRA = "needs the kubernetes extra: pip install hpnb[kubernetes]"


def kube(**fields: Any) -> Resources:
    return parse_resources({"cluster": "kubernetes", **fields})


def worker_container(manifest: dict[str, Any]) -> dict[str, Any]:
    return manifest["spec"]["worker"]["spec"]["containers"][0]


def scheduler_container(manifest: dict[str, Any]) -> dict[str, Any]:
    return manifest["spec"]["scheduler"]["spec"]["containers"][0]


def env_of(container: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["value"] for item in container.get("env", [])}


GPU_RESOURCES = {
    "workers": 3,
    "threads_per_worker": 2,
    "requests": {"cpu": "0.5", "memory": "2Gi"},
    "limits": {"cpu": "4024m", "memory": "4024Mi", "nvidia.com/gpu": 1},
    "kubernetes": {
        "namespace": "ml",
        "env": {"OMP_NUM_THREADS": 2},
        "node_selector": {"pool": "gpu"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "service_account": "trainer",
    },
}


def test_worker_gets_the_users_quantities_as_written():
    container = worker_container(cluster_manifest(kube(**GPU_RESOURCES), "hpnb-gpu"))
    assert container["resources"] == {
        "requests": {"cpu": "0.5", "memory": "2Gi"},
        "limits": {"cpu": "4024m", "memory": "4024Mi", "nvidia.com/gpu": "1"},
    }


def test_worker_args_carry_threads_and_the_memory_limit_in_bytes():
    args = worker_container(cluster_manifest(kube(**GPU_RESOURCES), "hpnb-gpu"))["args"]
    assert args[:2] == ["dask", "worker"]
    assert args[args.index("--nthreads") + 1] == "2"
    assert int(args[args.index("--memory-limit") + 1]) == 4024 * 2**20


def test_no_memory_limit_means_no_memory_limit_flag():
    args = worker_container(cluster_manifest(kube(workers=1, requests={"memory": "2Gi"}), "a"))["args"]
    assert "--memory-limit" not in args


def test_gpus_and_user_resources_stay_off_the_scheduler():
    manifest = cluster_manifest(kube(**GPU_RESOURCES), "hpnb-gpu")
    scheduler = manifest["spec"]["scheduler"]
    assert scheduler_container(manifest)["resources"] == {"requests": dict(SCHEDULER_REQUESTS)}
    assert "nvidia.com/gpu" not in yaml.safe_dump(scheduler)
    assert "nodeSelector" not in scheduler["spec"] and "tolerations" not in scheduler["spec"]


def test_pod_placement_and_identity():
    manifest = cluster_manifest(kube(**GPU_RESOURCES), "hpnb-gpu")
    worker_pod = manifest["spec"]["worker"]["spec"]
    assert manifest["metadata"] == {"name": "hpnb-gpu", "namespace": "ml"}
    assert manifest["spec"]["worker"]["replicas"] == 3
    assert worker_pod["nodeSelector"] == {"pool": "gpu"}
    assert worker_pod["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert worker_pod["serviceAccountName"] == "trainer"
    assert manifest["spec"]["scheduler"]["spec"]["serviceAccountName"] == "trainer"
    assert env_of(worker_container(manifest))["OMP_NUM_THREADS"] == "2"
    assert env_of(scheduler_container(manifest)) == {"OMP_NUM_THREADS": "2"}


def test_default_image_matches_this_client_and_installs_hpnb_on_workers():
    manifest = cluster_manifest(kube(workers=1), "hpnb-a")
    python = f"py{sys.version_info.major}.{sys.version_info.minor}"
    image = f"ghcr.io/dask/dask:{metadata.version('distributed')}-{python}"
    assert worker_container(manifest)["image"] == scheduler_container(manifest)["image"] == image
    assert env_of(worker_container(manifest)) == {"EXTRA_PIP_PACKAGES": f"hpnb=={metadata.version('hpnb')}"}
    assert "env" not in scheduler_container(manifest)


def test_extra_pip_packages_of_the_user_are_kept_next_to_hpnb():
    requirement = f"hpnb=={metadata.version('hpnb')}"
    torch = cluster_manifest(kube(kubernetes={"env": {"EXTRA_PIP_PACKAGES": "torch"}}), "a")
    assert env_of(worker_container(torch))["EXTRA_PIP_PACKAGES"] == f"{requirement} torch"
    pinned = cluster_manifest(kube(kubernetes={"env": {"EXTRA_PIP_PACKAGES": "hpnb[x]==0.0.9 torch"}}), "a")
    assert env_of(worker_container(pinned))["EXTRA_PIP_PACKAGES"] == "hpnb[x]==0.0.9 torch"


def test_a_custom_image_is_used_as_is():
    manifest = cluster_manifest(kube(kubernetes={"image": "registry.example/team/trainer:7"}), "a")
    assert worker_container(manifest)["image"] == "registry.example/team/trainer:7"
    assert scheduler_container(manifest)["image"] == "registry.example/team/trainer:7"
    assert "EXTRA_PIP_PACKAGES" not in env_of(worker_container(manifest))


@pytest.mark.parametrize(
    ("fields", "replicas"),
    [({"workers": 5}, 5), ({}, 1), ({"kubernetes": {"adapt": {"minimum": 2, "maximum": 9}}}, 2)],
)
def test_replicas(fields, replicas):
    assert cluster_manifest(kube(**fields), "a")["spec"]["worker"]["replicas"] == replicas


def test_gpu_request_without_an_equal_limit_is_refused():
    with pytest.raises(SpecError, match=r"resources\.limits\.nvidia\.com/gpu: must be set and equal"):
        cluster_manifest(kube(requests={"nvidia.com/gpu": 1}), "a")
    with pytest.raises(SpecError, match=r"resources\.limits\.nvidia\.com/gpu"):
        cluster_manifest(kube(requests={"nvidia.com/gpu": 1}, limits={"nvidia.com/gpu": 2}), "a")
    both = cluster_manifest(kube(requests={"nvidia.com/gpu": 2}, limits={"nvidia.com/gpu": 2}), "a")
    assert worker_container(both)["resources"]["limits"] == {"nvidia.com/gpu": "2"}


@pytest.mark.parametrize("name", ["Upper", "1starts-with-digit", "ends-", "under_score", "x" * 54, ""])
def test_bad_cluster_names_are_refused(name):
    with pytest.raises(SpecError, match="not a valid Kubernetes cluster name"):
        cluster_manifest(kube(), name)


@pytest.mark.parametrize("experiment", ["MLP lr", "a_b__c", "x" * 200, "résumé-2", "--"])
def test_names_derived_from_experiments_are_valid(experiment):
    name = cluster_name_for(experiment)
    check_cluster_name(name)
    assert name.startswith("hpnb")


def test_autoscaler_manifest():
    resources = kube(kubernetes={"namespace": "ml", "adapt": {"minimum": 0, "maximum": 6}})
    autoscaler = autoscaler_manifest(resources, "hpnb-a")
    assert autoscaler is not None
    assert autoscaler["apiVersion"] == "kubernetes.dask.org/v1"
    assert autoscaler["kind"] == "DaskAutoscaler"
    assert autoscaler["metadata"]["namespace"] == "ml"
    assert autoscaler["spec"] == {"cluster": "hpnb-a", "minimum": 0, "maximum": 6}
    assert autoscaler_manifest(kube(workers=2), "hpnb-a") is None


def test_manifest_yaml_holds_both_documents_without_anchors():
    resources = kube(**GPU_RESOURCES | {"kubernetes": {"adapt": {"minimum": 1, "maximum": 4}}})
    text = manifest_yaml(resources, "hpnb-a")
    assert list(yaml.safe_load_all(text)) == [
        cluster_manifest(resources, "hpnb-a"),
        autoscaler_manifest(resources, "hpnb-a"),
    ]
    assert "&id" not in text and "*id" not in text
    assert len(list(yaml.safe_load_all(manifest_yaml(kube(), "hpnb-a")))) == 1


# --- the same structure as dask-kubernetes' own make_cluster_spec -------------------------------


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a nested structure, None leaves left out (make_cluster_spec emits them)."""
    if isinstance(value, dict):
        paths: set[str] = set()
        for key, item in value.items():
            if item is not None:
                paths |= {f"{prefix}/{key}"} | key_paths(item, f"{prefix}/{key}")
        return paths
    if isinstance(value, list):
        return set().union(*(key_paths(item, f"{prefix}/{i}") for i, item in enumerate(value)))
    return set()


def test_structure_matches_make_cluster_spec():
    operator = pytest.importorskip("dask_kubernetes.operator", reason=NEEDS_EXTRA)
    resources = kube(
        workers=2,
        requests={"cpu": "1", "memory": "2Gi"},
        limits={"cpu": "2", "memory": "4Gi"},
        kubernetes={"image": "ghcr.io/dask/dask:latest", "env": {"A": "1"}},
    )
    ours = cluster_manifest(resources, "hpnb-a")
    theirs = operator.make_cluster_spec(
        name="hpnb-a",
        image="ghcr.io/dask/dask:latest",
        n_workers=2,
        env={"A": "1"},
        resources={"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}},
        worker_command="dask worker",
    )
    # by design the scheduler does not get the workers' resources: it asks for SCHEDULER_REQUESTS
    scheduler_resources = "/spec/scheduler/spec/containers/0/resources/"
    assert {p for p in key_paths(theirs) if not p.startswith(scheduler_resources)} <= key_paths(ours)
    for path in (
        ("metadata",),
        ("spec", "idleTimeout"),
        ("spec", "worker", "replicas"),
        ("spec", "scheduler", "service"),
    ):
        assert dig(ours, path) == dig(theirs, path), path
    for pick in (worker_container, scheduler_container):
        mine, reference = pick(ours), pick(theirs)
        for key in ("name", "image", "env", "ports", "readinessProbe", "livenessProbe"):
            assert mine.get(key) == reference.get(key), (mine["name"], key)
    assert worker_container(ours)["resources"] == worker_container(theirs)["resources"]
    reference_worker_args = worker_container(theirs)["args"]
    assert worker_container(ours)["args"][: len(reference_worker_args)] == reference_worker_args
    # make_cluster_spec starts the scheduler with the `dask-scheduler` script, which newer
    # distributed releases no longer install; `dask scheduler` is the same program.
    assert scheduler_container(ours)["args"] == [
        "dask",
        "scheduler",
        *scheduler_container(theirs)["args"][1:],
    ]


def dig(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


# --- what the API server would accept -----------------------------------------------------------


def test_pods_and_service_validate_against_kubernetes_1_30_strict():
    validate = pytest.importorskip(
        "kubernetes_validate", reason="needs kubernetes-validate (pip install kubernetes-validate)"
    ).validate
    resources = kube(**GPU_RESOURCES)
    manifest = cluster_manifest(resources, "hpnb-gpu")
    for role in ("worker", "scheduler"):
        pod_spec = manifest["spec"][role]["spec"]
        labels = {"dask.org/component": role}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"hpnb-gpu-{role}"}, "spec": pod_spec}
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"hpnb-gpu-{role}"},
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": pod_spec},
            },
        }
        assert validate(pod, "1.30", strict=True) == "1.30"
        assert validate(deployment, "1.30", strict=True) == "1.30"
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "hpnb-gpu-scheduler"},
        "spec": manifest["spec"]["scheduler"]["service"],
    }
    assert validate(service, "1.30", strict=True) == "1.30"


def test_strict_validation_notices_a_broken_pod():
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="needs kubernetes-validate")
    pod_spec = cluster_manifest(kube(), "a")["spec"]["worker"]["spec"]
    pod_spec["containers"][0]["resource"] = {"limits": {"cpu": "1"}}  # misspelt field
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": pod_spec}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(pod, "1.30", strict=True)


def crd_schema(kind: str) -> dict[str, Any]:
    """The operator's CRD schema, with unknown fields refused where the API server would prune them."""
    operator = pytest.importorskip("dask_kubernetes.operator", reason=NEEDS_EXTRA)
    chart = Path(operator.__file__).parent / "deployment" / "helm" / "dask-kubernetes-operator"
    path = chart / "crds" / f"{kind.lower()}.yaml"  # the CRDs the helm chart installs
    crd = yaml.safe_load(path.read_text())
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return refuse_pruned_fields(schema)


def refuse_pruned_fields(schema: Any) -> Any:
    if isinstance(schema, dict):
        schema = {key: refuse_pruned_fields(item) for key, item in schema.items()}
        if (
            "properties" in schema
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [refuse_pruned_fields(item) for item in schema]
    return schema


@pytest.mark.parametrize("kind", ["DaskCluster", "DaskAutoscaler"])
def test_manifests_fit_the_operators_own_crds(kind):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with kubernetes-validate")
    resources = kube(
        **GPU_RESOURCES
        | {"kubernetes": {**GPU_RESOURCES["kubernetes"], "adapt": {"minimum": 1, "maximum": 3}}}
    )
    documents = {doc["kind"]: doc for doc in yaml.safe_load_all(manifest_yaml(resources, "hpnb-gpu"))}
    spec_schema = crd_schema(kind)["properties"]["spec"]
    jsonschema.validate(documents[kind]["spec"], spec_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**documents[kind]["spec"], "replicaz": 2}, spec_schema)


def test_workers_advertise_what_their_limits_give_for_per_trial_resources():
    resources = parse_resources({"cluster": "kubernetes", "per_trial": {"gpu": 1, "memory": "2Gi"},
                                 "limits": {"nvidia.com/gpu": 2, "memory": "4Gi", "cpu": "1500m"},
                                 "requests": {"nvidia.com/gpu": 2}})
    args = cluster_manifest(resources, "gpus")["spec"]["worker"]["spec"]["containers"][0]["args"]
    assert args[args.index("--resources") + 1] == "cpu=1.5,gpu=2,memory=4294967296"


@pytest.mark.parametrize(("per_trial", "words"), [
    ({"gpu": 2}, ["resources.per_trial.gpu", "asks 2", "the most a worker has is 1 gpu", "resources.limits"]),
    ({"licence": 1}, ["resources.per_trial.licence", "none of them advertises it"]),
])
def test_a_trial_the_worker_spec_cannot_hold_is_refused_before_anything_starts(per_trial, words):
    resources = parse_resources({"cluster": "kubernetes", "per_trial": per_trial,
                                 "limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}})
    with pytest.raises(ClusterError) as raised:
        cluster_manifest(resources, "too-big")
    assert all(word in str(raised.value) for word in words), str(raised.value)
