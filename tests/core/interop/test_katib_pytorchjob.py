"""Trials that span several workers, to and from Katib: a PyTorchJob trial template, checked
against the Kubeflow training operator's v1 schema, and read back to the same workers, processes
and per-worker resources."""

from __future__ import annotations

import dataclasses
from typing import Any

import jsonschema
import pytest
import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_export import DEFAULT_NAME, export_katib
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec import ExperimentSpec, parse_spec
from tests.core.interop.katib_examples import FIXTURES, example_text, experiment_errors

#: RestartPolicy values of the training operator's v1 API (its CRD says only "string").
RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")

GANG = """
name: ddp
metric: loss
trials: 8
retries: 3
trial_timeout: 1h
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
  batch: [32, 64]
resources:
  threads_per_worker: 2
  per_trial: {workers: 3, procs_per_worker: 2, gpu: 1, cpu: 4, memory: 16Gi}
"""


def _pytorchjob_errors(job: Any) -> list[str]:
    """How ``job`` breaks the PyTorchJob CRD's schema (objects closed, so a misspelt field fails)."""
    schema = yaml.safe_load((FIXTURES / "pytorchjob_schema.yaml").read_text(encoding="utf-8"))

    def closed(node: Any) -> Any:
        if isinstance(node, list):
            return [closed(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: closed(value) for key, value in node.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out

    validator = jsonschema.Draft7Validator(closed(schema))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(job)]


def _exported(text: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(export_katib(parse_spec(text)).to_yaml())
    return document


def test_a_trial_of_three_workers_is_a_pytorchjob_of_a_master_and_two_workers():
    template = _exported(GANG)["spec"]["trialTemplate"]
    job = template["trialSpec"]
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v1", "PyTorchJob")
    replicas = job["spec"]["pytorchReplicaSpecs"]
    assert (replicas["Master"]["replicas"], replicas["Worker"]["replicas"]) == (1, 2)
    assert job["spec"]["nprocPerNode"] == "2"
    assert job["spec"]["runPolicy"] == {"backoffLimit": 3, "activeDeadlineSeconds": 3600}
    for replica in replicas.values():
        assert replica["restartPolicy"] in RESTART_POLICIES
        (container,) = replica["template"]["spec"]["containers"]
        assert container["name"] == template["primaryContainerName"] == "pytorch"
        assert container["resources"] == {"limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1}}
        assert "--lr=${trialParameters.lr}" in container["command"]
    # Katib collects the metrics of the Master, rank 0
    assert template["primaryPodLabels"] == {"training.kubeflow.org/job-role": "master"}
    assert "Succeeded" in template["successCondition"] and "Failed" in template["failureCondition"]


@pytest.mark.parametrize("text", [GANG, GANG.replace("workers: 3", "workers: 1"),
                                  GANG.replace("procs_per_worker: 2, ", "").replace("threads_per_worker: 2",
                                                                                      "workers: 8")])
def test_the_export_validates_against_katib_and_training_operator_schemas(text: str):
    document = _exported(text)
    assert experiment_errors(document) == []
    job = document["spec"]["trialTemplate"]["trialSpec"]
    assert _pytorchjob_errors(job) == []
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="needs kubernetes-validate "
                                                                            "(the test extra)")
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        pod_template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "replica"},
                        "template": replica["template"]}
        kubernetes_validate.validate(pod_template, "1.30", strict=True)


def test_the_pytorchjob_schema_check_can_fail():
    job = _exported(GANG)["spec"]["trialTemplate"]["trialSpec"]
    job["spec"]["nprocPerNode"] = 2  # the v1 API's nprocPerNode is a string
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replica"] = 2
    errors = _pytorchjob_errors(job)
    assert any("nprocPerNode" in e for e in errors) and any("'replica'" in e for e in errors), errors


def _round_trip(spec: ExperimentSpec) -> ExperimentSpec:
    return import_katib(export_katib(spec).to_yaml()).spec


#: what a Katib Experiment carries back (a PyTorchJob's runPolicy is not read, as a Job's is not).
ROUND_TRIP = """
metric: loss
strategy: random
trials: 8
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
  batch: [32, 64]
resources:
  threads_per_worker: THREADS
  per_trial: PER_TRIAL
"""


@pytest.mark.parametrize(("per_trial", "threads"), [
    ("{workers: 3, procs_per_worker: 2, gpu: 1, cpu: 4, memory: 16Gi}", 2),
    ("{workers: 2, procs_per_worker: 4}", 4), ("{procs_per_worker: 2, gpu: 2}", 2),
    ("{workers: 4, cpu: 500m}", 1)])
def test_import_of_the_export_keeps_workers_processes_and_resources(per_trial: str, threads: int):
    spec = parse_spec(ROUND_TRIP.replace("PER_TRIAL", per_trial).replace("THREADS", str(threads)))
    again = _round_trip(spec)
    need, back = spec.resources.per_trial, again.resources.per_trial
    assert (back.workers, back.procs_per_worker, dict(back.amounts)) == \
        (need.workers, need.procs_per_worker, dict(need.amounts))
    assert again == dataclasses.replace(spec, name=DEFAULT_NAME)


def test_a_one_worker_trial_exports_a_job_as_before():
    text = GANG.replace("  threads_per_worker: 2\n", "").replace(
        "{workers: 3, procs_per_worker: 2, gpu: 1, cpu: 4, memory: 16Gi}", "{gpu: 1}")
    result = export_katib(parse_spec(text))
    assert result.document["spec"]["trialTemplate"]["trialSpec"]["kind"] == "Job"
    assert any(note.field == "resources.per_trial" for note in result.notes)


def test_katibs_pytorchjob_example_imports_its_workers_processes_and_resources():
    result = import_katib(example_text("pytorchjob"))
    need = result.spec.resources.per_trial
    assert (need.workers, need.procs_per_worker, need.ranks) == (3, 2, 6)
    assert dict(need.raw) == {"cpu": "4", "memory": "8Gi", "gpu": "1"}
    # each process of a worker runs in a thread of it
    assert result.spec.resources.threads_per_worker == 2
    notes = {note.field: note for note in result.notes}
    template = notes["spec.trialTemplate.trialSpec"]
    assert template.line == 39 and "image, command" in template.text
    requests = "spec.trialTemplate.trialSpec.spec.pytorchReplicaSpecs.Master.template.spec.containers[0]." \
               "resources.limits.cpu"
    assert "the request '2' not carried" in notes[requests].text
    assert parse_spec(result.to_yaml()) == result.spec


def test_a_job_template_is_not_carried_as_before():
    result = import_katib(example_text("random"))
    assert result.spec.resources == parse_spec("metric: x").resources
    assert any(n.field == "spec.trialTemplate" and "not carried" in n.text for n in result.notes)


def _with_job(edit: str, replace: str) -> str:
    text = example_text("pytorchjob")
    assert edit in text
    return text.replace(edit, replace, 1)


JOB = "spec.trialTemplate.trialSpec.spec"
BAD = [
    ("replicas: 2", "replicas: -1", f"{JOB}.pytorchReplicaSpecs.Worker.replicas", "-1", "an integer >= 0"),
    ("replicas: 2", "replicas: two", f"{JOB}.pytorchReplicaSpecs.Worker.replicas", "'two'", "an integer"),
    ("replicas: 1", "replicas: 2", f"{JOB}.pytorchReplicaSpecs.Master.replicas", "2", "one Master"),
    ("Worker:", "Chief:", f"{JOB}.pytorchReplicaSpecs.Chief", "'Chief'", "Master, Worker"),
    ('nprocPerNode: "2"', 'nprocPerNode: "0"', f"{JOB}.nprocPerNode", "'0'", "an integer >= 1"),
    ('nprocPerNode: "2"', 'nprocPerNode: "1.5"', f"{JOB}.nprocPerNode", "'1.5'", "auto, cpu or gpu"),
    ("nvidia.com/gpu: 1}", "nvidia.com/gpu: 0.3}", f"{JOB}.pytorchReplicaSpecs.Master.template.spec."
                                                   "containers[0].resources.limits.gpu", "0.3", "1/k"),
]


@pytest.mark.parametrize(("edit", "replace", "field", "value", "allowed"), BAD)
def test_a_pytorchjob_hpnb_cannot_read_names_its_katib_field_and_line(edit: str, replace: str, field: str,
                                                                      value: str, allowed: str):
    with pytest.raises(SpecError) as raised:
        import_katib(_with_job(edit, replace))
    message = str(raised.value)
    assert raised.value.path == field and f"(got {value})" in message, message
    assert allowed in message and "[line " in message, message


def test_nproc_per_node_auto_is_read_as_one_process_with_a_note():
    result = import_katib(_with_job('nprocPerNode: "2"', "nprocPerNode: auto"))
    assert result.spec.resources.per_trial.procs_per_worker == 1
    assert any(n.field == f"{JOB}.nprocPerNode" and "'auto' not carried" in n.text for n in result.notes)


def test_a_workers_parameter_is_written_as_its_largest_value_with_a_note():
    text = GANG.replace("batch: [32, 64]", "nodes: [1, 2, 4]").replace("workers: 3",
                                                                       "workers: {parameter: nodes}")
    result = export_katib(parse_spec(text))
    replicas = result.document["spec"]["trialTemplate"]["trialSpec"]["spec"]["pytorchReplicaSpecs"]
    assert replicas["Worker"]["replicas"] == 3
    said = [n.text for n in result.notes if n.field == "resources.per_trial.workers"]
    assert len(said) == 1 and "largest value, 4" in said[0]


def test_what_a_container_cannot_hold_is_noted():
    text = GANG.replace("gpu: 1, cpu: 4, memory: 16Gi", "gpu: 0.5, licence: 1")
    result = export_katib(parse_spec(text))
    noted = {n.field for n in result.notes}
    assert {"resources.per_trial.gpu", "resources.per_trial.licence"} <= noted
    master = result.document["spec"]["trialTemplate"]["trialSpec"]["spec"]["pytorchReplicaSpecs"]["Master"]
    assert "resources" not in master["template"]["spec"]["containers"][0]


def test_the_fixture_is_a_valid_katib_experiment():
    katib = yaml.safe_load(example_text("pytorchjob"))
    assert katib["spec"]["trialTemplate"]["trialSpec"]["kind"] == "PyTorchJob"
    assert experiment_errors(katib) == []
