"""Katib's example Experiments (written in its documented format) read as hpnb specs."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.space import FixedParameter, FloatParameter, IntParameter
from hpnb.core.spec import parse_spec
from tests.core.interop.katib_examples import EXAMPLES, example_text

#: what a user checks in each imported spec: strategy, its options, early stopping, trials, mode.
EXPECTED: dict[str, dict[str, Any]] = {
    "random": {"strategy": ("random", {}), "rule": ("none", {}), "trials": 12, "mode": "max", "seed": 10},
    "grid": {"strategy": ("grid", {}), "rule": ("none", {}), "trials": 12, "mode": "min", "seed": None},
    "tpe": {"strategy": ("tpe", {"n_ei_candidates": 24}), "rule": ("none", {}), "trials": 20, "mode": "max",
            "seed": 3},
    "cmaes": {"strategy": ("cmaes", {}), "rule": ("none", {}), "trials": 12, "mode": "min", "seed": None},
    "hyperband": {"strategy": ("random", {}),
                  "rule": ("hyperband", {"max_t": 9, "grace": 1, "reduction": 3}), "trials": 30,
                  "mode": "min", "seed": None},
    "pbt": {"strategy": ("pbt", {"population": 8, "quantile": 0.2, "resample_probability": 0.3,
                                 "explore": "resample"}),
            "rule": ("none", {}), "trials": 8, "mode": "max", "seed": None},
    "medianstop": {"strategy": ("random", {}),
                   "rule": ("median", {"grace": 3, "min_trials": 2, "use": "average"}), "trials": 15,
                   "mode": "min", "seed": None},
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_imports_to_a_spec_that_parse_spec_accepts(name: str) -> None:
    result = import_katib(example_text(name))
    written = result.to_yaml()
    assert parse_spec(written) == result.spec  # what `hpnb import katib` writes reads back the same
    expected = EXPECTED[name]
    spec = result.spec
    assert (spec.strategy.name, dict(spec.strategy.options)) == expected["strategy"]
    assert (spec.early_stopping.rule, dict(spec.early_stopping.options)) == expected["rule"]
    assert (spec.trials, spec.mode, spec.seed) == (expected["trials"], expected["mode"], expected["seed"])
    katib = yaml.safe_load(example_text(name))["spec"]
    assert spec.metric == katib["objective"]["objectiveMetricName"]
    assert spec.parallel == katib["parallelTrialCount"]
    assert spec.max_failures == katib["maxFailedTrialCount"]
    assert [p.name for p in spec.space] == [p["name"] for p in katib["parameters"]]


@pytest.mark.parametrize("name", EXAMPLES)
def test_nothing_is_dropped_silently(name: str) -> None:
    """Every field of the Experiment's spec and every algorithm setting is read or reported."""
    result = import_katib(example_text(name))
    katib = yaml.safe_load(example_text(name))["spec"]
    noted = [note.field for note in result.notes]
    assert all(note.line is not None and note.line > 0 for note in result.notes)
    assert "spec.trialTemplate" in noted
    assert "spec.objective.goal" in noted
    read = {"objective", "algorithm", "parameters", "parallelTrialCount", "maxTrialCount",
            "maxFailedTrialCount", "earlyStopping"}
    for key in set(katib) - read:
        assert f"spec.{key}" in noted, key
    carried = {"random_state", "n_EI_candidates", "n_population", "truncation_threshold",
               "resample_probability", "r_l", "eta", "resource_name"}
    for index, setting in enumerate(katib["algorithm"].get("algorithmSettings", [])):
        if setting["name"] not in carried:
            assert f"spec.algorithm.algorithmSettings[{index}]" in noted, setting


def test_the_report_names_what_katib_records_and_the_goal() -> None:
    notes = {note.field: note for note in import_katib(example_text("random")).notes}
    assert "Train-accuracy" in notes["spec.objective.additionalMetricNames"].text
    assert "0.99" in notes["spec.objective.goal"].text
    assert notes["metadata.namespace"].line == 5
    assert "kubeflow" in notes["metadata.namespace"].text


def test_parameters_keep_their_types_and_distributions() -> None:
    space = {p.name: p for p in import_katib(example_text("random")).spec.space}
    assert space["lr"] == FloatParameter("lr", "logUniform", low=0.001, high=0.1)
    assert space["num-layers"] == IntParameter("num-layers", 2, 5)
    assert space["optimizer"].grid_values() == ("sgd", "adam", "ftrl")
    assert space["batch-size"].grid_values() == (16, 32, 64)  # discrete: numbers
    tpe = {p.name: p for p in import_katib(example_text("tpe")).spec.space}
    lr = tpe["lr"]
    assert isinstance(lr, FloatParameter) and lr.distribution == "normal"
    assert lr.mu == pytest.approx(0.03) and lr.sigma == pytest.approx(0.04 / 6)  # Katib's convention
    assert tpe["units"] == IntParameter("units", 16, 256, log=True)
    grid = import_katib(example_text("grid")).spec
    assert grid.space.grid_size() == 4 * 3


def test_hyperband_fixes_the_resource_parameter_at_the_largest_budget() -> None:
    result = import_katib(example_text("hyperband"))
    space = {p.name: p for p in result.spec.space}
    assert space["num-epochs"] == FixedParameter("num-epochs", 9)
    [note] = [n for n in result.notes if "num-epochs" in n.text]
    assert note.field == "spec.algorithm.algorithmSettings[0]" and note.line == 15


def test_bayesian_optimization_is_tpe_with_a_note() -> None:
    text = example_text("random").replace("algorithmName: random", "algorithmName: bayesianoptimization")
    text = text.replace("name: random_state", "name: n_initial_points")
    result = import_katib(text)
    assert result.spec.strategy.name == "tpe"
    assert dict(result.spec.strategy.options) == {"n_startup_trials": 10}
    assert any("bayesianoptimization is read as tpe" in note.text for note in result.notes)


def test_multivariate_tpe_and_sobol() -> None:
    text = example_text("tpe").replace("algorithmName: tpe", "algorithmName: multivariate-tpe")
    text = text.replace("name: n_EI_candidates", "name: n_ei_candidates")
    spec = import_katib(text).spec
    assert dict(spec.strategy.options) == {"multivariate": True, "n_ei_candidates": 24}
    sobol = example_text("cmaes").replace("algorithmName: cmaes", "algorithmName: sobol")
    assert import_katib(sobol).spec.strategy.name == "sobol"


def test_min_equal_max_and_a_list_of_one_value_are_fixed_values() -> None:
    text = example_text("grid").replace('max: "0.9"', 'max: "0.5"').replace('step: "0.2"', "")
    space = {p.name: p for p in import_katib(text).spec.space}
    assert space["momentum"] == FixedParameter("momentum", 0.5)


def test_a_normal_keeps_its_katib_bounds_as_truncation() -> None:
    lr = {p.name: p for p in import_katib(example_text("tpe")).spec.space}["weight-decay"]
    assert isinstance(lr, FloatParameter) and lr.distribution == "logNormal"
    assert (lr.low, lr.high) == (1e-05, 0.001)
    assert math.exp(lr.mu) == pytest.approx(1e-4)  # the geometric middle of the bounds


# -- bad input: one error each, naming the field, the value, what is allowed and the line -------------

def _error(text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        import_katib(text)
    return caught.value


def test_text_that_is_not_yaml() -> None:
    err = _error("apiVersion: kubeflow.org/v1beta1\nkind: [Experiment\nspec: {}\n")
    assert "YAML syntax error" in str(err) and err.line is not None


def test_a_document_that_is_not_a_mapping() -> None:
    err = _error("# a list\n- apiVersion: kubeflow.org/v1beta1\n- kind: Experiment\n")
    assert "not a mapping" in str(err) and "a Katib Experiment" in str(err)
    assert err.line == 2


def test_a_file_that_is_not_an_experiment() -> None:
    text = example_text("random").replace("kind: Experiment", "kind: Trial")
    err = _error(text)
    assert (err.path, err.value, err.allowed, err.line) == ("kind", "Trial", "Experiment", 3)
    assert str(err) == "kind: is not a Katib Experiment (got 'Trial'); allowed: Experiment [line 3]"


def test_a_kubernetes_object_without_kind_experiment() -> None:
    err = _error("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
    assert (err.path, err.value, err.line) == ("kind", "Deployment", 2)


def test_the_wrong_api_version() -> None:
    text = example_text("random").replace("kubeflow.org/v1beta1", "kubeflow.org/v1alpha3")
    err = _error(text)
    assert (err.path, err.value, err.allowed, err.line) == (
        "apiVersion", "kubeflow.org/v1alpha3", "kubeflow.org/v1beta1", 2)


def test_an_unknown_parameter_type() -> None:
    text = example_text("random").replace("parameterType: double", "parameterType: float")
    err = _error(text)
    assert err.path == "spec.parameters[0].parameterType" and err.value == "float"
    assert err.allowed == "double, int, discrete, categorical" and err.line == 24
    assert err.suggestion == "double"


def test_a_feasible_space_without_min() -> None:
    text = example_text("random").replace('        min: "2"\n', "")
    err = _error(text)
    assert err.path == "spec.parameters[1].feasibleSpace.min" and "is missing" in err.problem
    assert "a number" in (err.allowed or "") and err.line == 31  # the line of feasibleSpace


@pytest.mark.parametrize(("old", "new", "path", "line"), [
    ('max: "0.1"', 'max: "0.0001"', "spec.parameters[0].feasibleSpace.max", 27),
    ("type: maximize", "type: maximise", "spec.objective.type", 9),
    ("algorithmName: random", "algorithmName: enas", "spec.algorithm.algorithmName", 15),
    ("algorithmName: random", "algorithmName: annealing", "spec.algorithm.algorithmName", 15),
    ('value: "10"', 'value: "-1"', "spec.algorithm.algorithmSettings[0].value", 18),
    ("maxTrialCount: 12", "maxTrialCount: 0", "spec.maxTrialCount", 20),
    ('list: ["16", "32", "64"]', 'list: ["16", "big"]', "spec.parameters[3].feasibleSpace.list.1", 44),
])
def test_other_bad_fields_name_the_katib_field_and_line(old: str, new: str, path: str, line: int) -> None:
    text = example_text("random")
    assert old in text
    err = _error(text.replace(old, new, 1))
    assert (err.path, err.line) == (path, line), str(err)


def test_pbt_settings_are_checked_against_hpnb_pbt() -> None:
    text = example_text("pbt").replace('value: "0.2"', 'value: "0.9"')
    err = _error(text)
    assert err.path == "spec.algorithm.algorithmSettings[2].value" and err.line == 23


def test_too_many_parameters_are_refused_before_any_is_read() -> None:
    head = example_text("grid").split("  parameters:")[0]
    items = "".join(f"    - {{name: p{i}, parameterType: categorical, feasibleSpace: {{list: [a, b]}}}}\n"
                    for i in range(1001))
    err = _error(head + "  parameters:\n" + items)
    assert err.path == "spec.parameters" and "MAX_PARAMETERS" in err.problem and err.line == 16
