"""Specs written as Katib Experiments: valid against Katib's schemas, and read back equal.

What a Katib Experiment cannot carry, and so what the round trips leave out:
the trial template's contents on the way in (hpnb runs a Python function), hence
``retries`` and ``trial_timeout`` (written into the placeholder Job) and
``resources`` (the container's requests and limits) come back as defaults; ``timeout``;
parameter ``default`` values; ``mu``/``sigma`` of a normal that is not centred
between its bounds (Katib's convention); non-string categorical values (Katib's are
strings); strategies and options Katib lacks (``de``, ``fixed``, ``range``, ``asha``,
tpe's ``group``, pbt's ``ready``, ...). Each is reported in the notes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_export import DEFAULT_NAME, export_katib
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.spec.values import number_from_text
from tests.core.interop.katib_examples import EXAMPLES, example_text, experiment_errors

PARAMETERS = """
parameters:
  lr: {distribution: logUniform, min: 1.0e-5, max: 0.1}
  momentum: {min: 0.8, max: 0.99, step: 0.01}
  layers: {type: int, min: 1, max: 4}
  units: {type: int, min: 8, max: 512, log: true}
  optimizer: [sgd, adam, rmsprop]
  batch: {type: discrete, list: [32, 64, 128]}
  depth: [16, 2, 4, 8]
  wd: [0, 1.0e-5, 1.0e-4, 1.0e-3]
  dropout: {distribution: normal, min: 0.1, max: 0.5}
  decay: {distribution: logNormal, min: 1.0e-6, max: 1.0e-2}
  act: relu
  width: 64
  scale: 0.5
"""

#: specs Katib can say in full: each comes back equal.
ROUND_TRIPS = {
    "tpe-median": """
name: mlp-lr
metric: val_loss
mode: min
strategy: {name: tpe, n_ei_candidates: 32}
trials: 30
parallel: 4
seed: 5
max_failures: 3
early_stopping: {rule: median, grace: 2, min_trials: 4, use: average}
""" + PARAMETERS,
    "multivariate-tpe": """
metric: acc
mode: max
strategy: {name: tpe, multivariate: true, n_startup_trials: 5, n_ei_candidates: 12}
seed: 0
""" + PARAMETERS,
    "grid": "metric: loss\nstrategy: grid\nseed: 1\nparameters:\n  a: [1, 2, 3]\n"
            "  b: {min: 0.0, max: 1.0, step: 0.25}\n",
    "random": "metric: loss\nstrategy: random\ntrials: 7\n" + PARAMETERS,
    "sobol": "metric: loss\nstrategy: sobol\ntrials: 16\nseed: 2\n" + PARAMETERS,
    "cmaes": "metric: loss\nstrategy: cmaes\nparameters:\n  x: {min: -1.0, max: 1.0}\n"
             "  y: {min: -1.0, max: 1.0}\n",
    "pbt": """
metric: acc
mode: max
strategy: {name: pbt, population: 6, quantile: 0.25, explore: resample, resample_probability: 0.5}
parallel: 3
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 0.1}
""",
    "several-objectives": """
name: mlp-front
metrics: {val_loss: min, accuracy: max, latency_ms: min}
strategy: tpe
trials: 40
seed: 3
""" + PARAMETERS,
    "hyperband": """
metric: loss
strategy: random
trials: 50
parallel: 27
early_stopping: {rule: hyperband, max_t: 27, grace: 1, reduction: 3}
parameters:
  lr: {min: 0.01, max: 0.1}
  epochs: 27
""",
}


def _round_trip(spec: ExperimentSpec) -> ExperimentSpec:
    return import_katib(export_katib(spec).to_yaml()).spec


@pytest.mark.parametrize("key", ROUND_TRIPS)
def test_spec_to_katib_to_spec_is_equal(key: str) -> None:
    spec = parse_spec(ROUND_TRIPS[key])
    # a Katib Experiment always has a name: a spec without one comes back with the default
    assert _round_trip(spec) == dataclasses.replace(spec, name=spec.name or DEFAULT_NAME)


@pytest.mark.parametrize("name", EXAMPLES)
def test_katib_to_spec_to_katib_to_spec_is_equal(name: str) -> None:
    spec = import_katib(example_text(name)).spec
    assert _round_trip(spec) == spec


@pytest.mark.parametrize("name", EXAMPLES)
def test_katib_settings_come_back(name: str) -> None:
    """What Katib said and hpnb carries is said again, in Katib's words."""
    katib = yaml.safe_load(example_text(name))["spec"]
    written = yaml.safe_load(export_katib(import_katib(example_text(name)).spec).to_yaml())["spec"]
    for key in ("objective", "algorithm", "earlyStopping"):
        original, again = katib.get(key, {}), written.get(key, {})
        assert again.get("algorithmName") == original.get("algorithmName")
        carried = {"random_state", "n_EI_candidates", "n_population", "truncation_threshold",
                   "resample_probability", "r_l", "eta", "resource_name", "min_trials_required",
                   "start_step"}
        kept = [s for s in original.get("algorithmSettings", []) if s["name"] in carried]
        assert all(s in again.get("algorithmSettings", []) for s in kept), (key, again)
    assert written["objective"]["type"] == katib["objective"]["type"]
    for parameter, again in zip(katib["parameters"], written["parameters"], strict=True):
        assert again["name"] == parameter["name"]
        if name != "hyperband":  # the resource parameter is fixed at r_l
            assert _numbers(again) == _numbers(parameter)


def _numbers(item: dict[str, Any]) -> dict[str, Any]:
    """A parameters item with its numbers read ("0.00001" and "1e-05" are the same number)."""
    space = {key: number_from_text(value) if isinstance(value, str) and number_from_text(value) is not None
             else value for key, value in item["feasibleSpace"].items()}
    return {**item, "feasibleSpace": space}


@pytest.mark.parametrize("source", [*ROUND_TRIPS.values(), *EXAMPLES])
def test_every_export_validates_against_katib_schemas(source: str) -> None:
    spec = import_katib(example_text(source)).spec if source in EXAMPLES else parse_spec(source)
    document = yaml.safe_load(export_katib(spec).to_yaml())
    assert experiment_errors(document) == []
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="needs kubernetes-validate "
                                                                            "(the test extra)")
    kubernetes_validate.validate(document["spec"]["trialTemplate"]["trialSpec"], "1.30", strict=True)


def test_the_schema_check_can_fail() -> None:
    document = yaml.safe_load(export_katib(parse_spec(ROUND_TRIPS["random"])).to_yaml())
    document["spec"]["maxTrialCount"] = "7"
    document["spec"]["parameters"][0]["feasibleSpace"]["minimum"] = "0"
    errors = experiment_errors(document)
    assert any("maxTrialCount" in e for e in errors) and any("minimum" in e for e in errors)


def test_the_trial_template_is_a_marked_placeholder() -> None:
    spec = parse_spec(ROUND_TRIPS["tpe-median"])
    text = export_katib(spec).to_yaml()
    assert "# FILL-IN: the trial template below is a placeholder" in text
    template = yaml.safe_load(text)["spec"]["trialTemplate"]
    container = template["trialSpec"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].startswith("FILL-IN/")
    references = {p["reference"]: p["name"] for p in template["trialParameters"]}
    assert list(references) == [p.name for p in spec.space]
    for reference, name in references.items():
        assert f"--{name}=${{trialParameters.{name}}}" in container["command"], reference


NOT_CARRIED = """
metric: loss
strategy: {name: de, population: 8}
trials: 40
retries: 4
timeout: 2h
trial_timeout: 90s
early_stopping: {rule: asha, max_t: 27}
resources:
  cluster: kubernetes
  workers: 4
  requests: {cpu: "1", memory: 2Gi}
  limits: {cpu: "2", memory: 4Gi}
parameters:
  lr: {min: 0.01, max: 0.1, default: 0.05}
  noise: {distribution: normal, mu: 0.0, sigma: 1.0}
  flag: [true, false]
"""


def test_what_katib_cannot_say_is_reported_and_comes_back_as_defaults() -> None:
    spec = parse_spec(NOT_CARRIED)
    result = export_katib(spec)
    noted = {note.field for note in result.notes}
    for field in ("strategy", "strategy.population", "early_stopping", "early_stopping.max_t", "timeout",
                  "resources.cluster", "resources.workers", "parameters.lr.default", "parameters.noise",
                  "parameters.flag"):
        assert field in noted, field
    job = result.document["spec"]["trialTemplate"]["trialSpec"]["spec"]
    assert (job["backoffLimit"], job["activeDeadlineSeconds"]) == (4, 90)
    container = job["template"]["spec"]["containers"][0]
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "2Gi"},
                                      "limits": {"cpu": "2", "memory": "4Gi"}}
    again = import_katib(result.to_yaml()).spec
    assert (again.strategy.name, again.early_stopping.rule) == ("random", "none")
    assert (again.retries, again.timeout, again.trial_timeout) == (2, None, None)
    assert again.resources == parse_spec("metric: x").resources
    assert [p.grid_values() for p in again.space][2] == ("true", "false")


def test_numbers_that_are_labels_are_written_as_a_discrete_list_with_a_note() -> None:
    spec = parse_spec("metric: loss\nparameters:\n  seed: {values: [42, 1, 7], ordered: false}\n")
    result = export_katib(spec)
    assert [note.field for note in result.notes if "ordered: false" in note.text] == ["parameters.seed"]
    again = import_katib(result.to_yaml()).spec
    assert again.space["seed"].describe() == "ordered [1, 7, 42] log"


def test_hyperband_needs_a_resource_parameter_and_enough_parallel_trials() -> None:
    spec = parse_spec("metric: loss\nearly_stopping: {rule: hyperband, max_t: 9}\n"
                      "parameters:\n  lr: {min: 0.01, max: 0.1}\n")
    result = export_katib(spec)
    body = result.document["spec"]
    settings = {s["name"]: s["value"] for s in body["algorithm"]["algorithmSettings"]}
    assert settings == {"resource_name": "max_t", "eta": "3", "r_l": "9"}
    assert body["parameters"][-1] == {"name": "max_t", "parameterType": "int",
                                      "feasibleSpace": {"min": "9", "max": "9"}}
    assert body["parallelTrialCount"] == 9  # Katib: at least eta ** s_max
    assert {"parameters.max_t", "parallel"} <= {note.field for note in result.notes}


def test_names_become_kubernetes_names() -> None:
    spec = parse_spec("name: MLP_search.v2\nmetric: loss\nparameters:\n  a: [1, 2]\n")
    assert export_katib(spec).document["metadata"]["name"] == "mlp-search.v2"
    assert export_katib(spec, name="other").document["metadata"]["name"] == "other"


def test_recorded_metrics_become_additional_metric_names() -> None:
    spec = parse_spec("metric: loss\nparameters:\n  a: [1, 2]\n")
    result = export_katib(spec, recorded_metrics=["acc", "loss", "acc", "time"])
    objective = result.document["spec"]["objective"]
    assert objective == {"type": "minimize", "objectiveMetricName": "loss",
                         "additionalMetricNames": ["acc", "time"]}


def test_values_that_are_the_same_text_are_reported() -> None:
    result = export_katib(parse_spec("metric: loss\nparameters:\n  a: [1, '1', x]\n"))
    assert any(note.field == "parameters.a" and "same text" in note.text for note in result.notes)


def test_several_objectives_export_the_first_and_record_the_others_with_a_note() -> None:
    spec = parse_spec("metrics: {val_loss: min, latency_ms: min}\nstrategy: nsga2\n"
                      "parameters:\n  a: [1, 2]\n")
    result = export_katib(spec, recorded_metrics=["latency_ms", "epoch"])
    assert result.document["spec"]["objective"] == {
        "type": "minimize", "objectiveMetricName": "val_loss",
        "additionalMetricNames": ["latency_ms", "epoch"]}
    assert result.document["metadata"]["annotations"] == {
        "hpnb/objectives": '{"val_loss":"min","latency_ms":"min"}'}
    assert any(note.field == "metrics" and "one objective" in note.text for note in result.notes)
    assert any(note.field == "strategy" and "nsga2" in note.text for note in result.notes)
    assert experiment_errors(yaml.safe_load(result.to_yaml())) == []
    back = import_katib(result.to_yaml())
    assert [(o.name, o.mode) for o in back.spec.objectives] == [("val_loss", "min"), ("latency_ms", "min")]
    assert any(note.field == "spec.objective.additionalMetricNames" and "'epoch'" in note.text
               for note in back.notes)


def test_additional_metrics_are_objectives_only_where_the_annotation_says() -> None:
    text = example_text("random").replace("metadata:\n", "metadata:\n  annotations: {team: ml}\n", 1)
    plain = import_katib(text)
    assert len(plain.spec.objectives) == 1
    assert any(note.field == "metadata.annotations.team" for note in plain.notes)
    broken = text.replace("{team: ml}", "{hpnb/objectives: 'val_loss: lowest'}")
    with pytest.raises(SpecError) as error:
        import_katib(broken)
    assert error.value.path == "metadata.annotations.hpnb/objectives"
    assert error.value.line == 5
