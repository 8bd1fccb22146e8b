"""The accepted forms of a search spec and the round trip through ``to_dict``."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import pytest

from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
)
from hpnb.core.spec import DEFAULT_TRIALS, ExperimentSpec, parse_spec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def spec_with(parameters: str, head: str = "metric: loss\n") -> ExperimentSpec:
    return parse_spec(head + "parameters:\n" + parameters)


def test_design_cell_body_parses_into_every_field() -> None:
    spec = parse_spec((EXAMPLES / "mlp.yaml").read_text())
    assert (spec.metric, spec.mode, spec.strategy.name, spec.trials, spec.parallel, spec.seed) == (
        "val_loss", "min", "random", 40, 4, 0)
    assert spec.space["lr"] == FloatParameter("lr", "logUniform", low=1e-5, high=0.1)
    assert spec.space["momentum"] == FloatParameter("momentum", low=0.8, high=0.99, step=0.01)
    assert spec.space["layers"] == IntParameter("layers", 1, 4)
    assert spec.space["optimizer"] == CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop"))
    assert spec.space["dropout"] == FloatParameter("dropout", "normal", mu=0.3, sigma=0.1)
    assert spec.space["batch"] == FixedParameter("batch", 64)
    assert spec.early_stopping.rule == "asha"
    assert dict(spec.early_stopping.options) == {"grace": 1, "reduction": 3, "max_t": 27}
    assert spec.resources.workers == 4
    assert spec.resources.memory_limit_bytes() == 4 * 2**30
    assert spec.resources.cpu_request() == 1.0
    assert (spec.max_failures, spec.retries, spec.name) == (5, 2, None)


def test_legion_vocabulary() -> None:
    spec = parse_spec((EXAMPLES / "legion.yaml").read_text())
    assert spec.strategy.name == "random"  # "default/random"
    assert spec.trials == 12  # countOfSelections
    assert spec.space["alpha"] == FloatParameter("alpha", low=0.1, high=10.0)
    assert spec.space["l1_ratio"] == FloatParameter("l1_ratio", low=0.1, high=0.9, step=0.1)
    assert spec.space["max_iter"] == FixedParameter("max_iter", 1000)
    assert spec.resources.cpu_limit() == pytest.approx(4.024)
    assert spec.resources.memory_limit_bytes() == 4219469824
    assert spec.resources.requests["cpu"].value == 0.5


def test_katib_parameters_list_pasted_as_is() -> None:
    spec = parse_spec((EXAMPLES / "katib.yaml").read_text())
    assert spec.space.names == ("lr", "num-layers", "optimizer", "momentum", "batch-size")
    assert spec.space["lr"] == FloatParameter("lr", "logUniform", low=0.01, high=0.05)
    assert spec.space["num-layers"] == IntParameter("num-layers", 2, 5)
    assert spec.space["optimizer"] == CategoricalParameter("optimizer", ("sgd", "adam", "ftrl"))
    assert spec.space["batch-size"] == OrdinalParameter("batch-size", (32, 64, 128))


def test_katib_normal_from_bounds_uses_katib_convention() -> None:
    spec = spec_with("  - {name: m, parameterType: double,"
                     " feasibleSpace: {min: '0.5', max: '0.8', distribution: normal}}\n")
    p = spec.space["m"]
    assert isinstance(p, FloatParameter)
    assert (p.distribution, p.low, p.high) == ("normal", 0.5, 0.8)
    assert (p.mu, p.sigma) == (pytest.approx(0.65), pytest.approx(0.05))


def test_katib_lognormal_from_bounds_works_on_the_log_scale() -> None:
    spec = spec_with("  - {name: lr, parameterType: double,"
                     " feasibleSpace: {min: '0.001', max: '0.1', distribution: logNormal}}\n")
    p = spec.space["lr"]
    assert isinstance(p, FloatParameter)
    assert p.mu == pytest.approx(math.log(0.01))
    assert p.sigma == pytest.approx((math.log(0.1) - math.log(0.001)) / 6)
    assert (p.low, p.high) == (0.001, 0.1)


def test_katib_int_with_logUniform_is_a_log_scaled_int() -> None:
    spec = spec_with("  - {name: units, parameterType: int,"
                     " feasibleSpace: {min: '8', max: '512', distribution: logUniform}}\n")
    assert spec.space["units"] == IntParameter("units", 8, 512, log=True)


@pytest.mark.parametrize(("text", "expected"), [
    ('a: "1.0"', FixedParameter("a", 1.0)),
    ('a: "3"', FixedParameter("a", 3)),
    ('a: "1e-5"', FixedParameter("a", 1e-5)),
    ("a: 1e-5", FixedParameter("a", 1e-5)),  # YAML 1.1 reads this as a string
    ("a: relu", FixedParameter("a", "relu")),
    ("a: true", FixedParameter("a", True)),
    ("a: null", FixedParameter("a", None)),
    ('a: "[0.1, 10]"', FloatParameter("a", low=0.1, high=10.0)),
    ('a: {range: "[0.1, 10]", step: "0.1"}', FloatParameter("a", low=0.1, high=10.0, step=0.1)),
    ('a: {range: "[1, 10]", step: 3}', IntParameter("a", 1, 10, step=3)),
    ("a: {range: [0.5, 2.5]}", FloatParameter("a", low=0.5, high=2.5)),
    ("a: [1, 2, 4]", OrdinalParameter("a", (1, 2, 4))),
    ("a: [4, 0.5, 2]", OrdinalParameter("a", (0.5, 2, 4))),
    ("a: {values: [4, 0.5, 2], default: 2}", OrdinalParameter("a", (0.5, 2, 4), default=2)),
    ("a: {values: [1, 7, 42], ordered: false}", CategoricalParameter("a", (1, 7, 42))),
    ("a: {type: categorical, list: [1, 2]}", CategoricalParameter("a", (1, 2))),
    ("a: [1, x]", CategoricalParameter("a", (1, "x"))),
    ("a: [3]", FixedParameter("a", 3)),
    ("a: {values: [x], default: x}", FixedParameter("a", "x")),
    ("a: {values: [x, y], default: y}", CategoricalParameter("a", ("x", "y"), default="y")),
    ("a: {list: [x, y]}", CategoricalParameter("a", ("x", "y"))),
    ("a: {type: discrete, list: ['1', '2.5']}", OrdinalParameter("a", (1, 2.5))),
    ("a: {type: discrete, list: ['1', '2.5'], ordered: false}", CategoricalParameter("a", (1, 2.5))),
    ("a: {type: fixed, value: 7}", FixedParameter("a", 7)),
    ("a: {value: sgd}", FixedParameter("a", "sgd")),
    ("a: {min: 1, max: 4}", IntParameter("a", 1, 4)),
    ("a: {min: 1, max: 4, type: double}", FloatParameter("a", low=1.0, high=4.0)),
    ("a: {min: 0.0, max: 1}", FloatParameter("a", low=0.0, high=1.0)),
    ("a: {type: int, min: 1, max: 64, log: true}", IntParameter("a", 1, 64, log=True)),
    ("a: {type: float, min: 1.0e-4, max: 1.0, log: true}",
     FloatParameter("a", "logUniform", low=1e-4, high=1.0)),
    ("a: {type: int, min: '2', max: '10', step: '2', default: 4}",
     IntParameter("a", 2, 10, step=2, default=4)),
    ("a: {distribution: normal, mean: 0.3, std: 0.1}", FloatParameter("a", "normal", mu=0.3, sigma=0.1)),
    ("a: {distribution: normal, mu: 0, sigma: 1, min: -1, max: 1}",
     FloatParameter("a", "normal", low=-1.0, high=1.0, mu=0.0, sigma=1.0)),
    ("a: {distribution: logNormal, mu: -2, sigma: 0.5}",
     FloatParameter("a", "logNormal", mu=-2.0, sigma=0.5)),
    ("a: {mu: 1, sigma: 2}", FloatParameter("a", "normal", mu=1.0, sigma=2.0)),
    ("a: {parameterType: double, feasibleSpace: {min: '0.1', max: '0.2'}}",
     FloatParameter("a", low=0.1, high=0.2)),
])
def test_parameter_forms(text: str, expected: object) -> None:
    assert spec_with("  " + text + "\n").space["a"] == expected


def test_double_values_are_floats_and_int_values_are_ints() -> None:
    spec = spec_with("  x: {type: double, min: 1, max: 3, step: 1}\n  n: {range: '[1, 3]', step: 1}\n")
    values = spec.space["x"].grid_values()
    assert values == (1.0, 2.0, 3.0)
    assert all(isinstance(v, float) for v in values or ())
    assert spec.space["n"].grid_values() == (1, 2, 3)


def test_strategy_as_mapping_with_options() -> None:
    spec = parse_spec("metric: loss\nstrategy: {name: grid, shuffle: true}\nparameters:\n  a: [1, 2, 3]\n")
    assert spec.strategy.name == "grid"
    assert dict(spec.strategy.options) == {"shuffle": True}
    with pytest.raises(TypeError):
        spec.strategy.options["shuffle"] = False  # type: ignore[index]


@pytest.mark.parametrize(("strategy", "trials"), [
    ("grid", 6), ("range", 4), ("fixed", 1), ("default/fixed", 1), ("random", DEFAULT_TRIALS),
    ("sobol", DEFAULT_TRIALS),
])
def test_default_trials_is_the_size_of_a_finite_strategy(strategy: str, trials: int) -> None:
    spec = parse_spec(f"metric: loss\nstrategy: {strategy}\nparameters:\n"
                      "  a: [1, 2, 3]\n  b: {type: int, min: 0, max: 1}\n")
    assert spec.trials == trials


def test_fixed_strategy_with_configs_counts_them() -> None:
    spec = parse_spec("metric: loss\nstrategy: {name: fixed, configs: [{a: 1}, {a: 3}]}\nparameters:\n"
                      "  a: [1, 2, 3]\n")
    assert spec.trials == 2


def test_budget_above_a_finite_strategy_is_kept() -> None:
    spec = parse_spec("metric: loss\nstrategy: grid\ntrials: 50\nparameters:\n  a: [1, 2]\n")
    assert spec.trials == 50


def test_top_level_options_and_synonyms() -> None:
    spec = parse_spec("name: run-1\nmetric: acc\nmode: maximize\nmaxTrialCount: 9\nparallelTrialCount: 3\n"
                      "maxFailedTrialCount: 0\nretries: 0\nseed: '5'\nearly_stopping: median\n")
    assert (spec.name, spec.mode, spec.trials, spec.parallel, spec.max_failures, spec.retries, spec.seed) == (
        "run-1", "max", 9, 3, 0, 0, 5)
    assert spec.early_stopping.rule == "median"
    assert len(spec.space) == 0


def test_early_stopping_defaults_to_none() -> None:
    spec = parse_spec("metric: loss\nparameters:\n  a: [1, 2]\n")
    assert spec.early_stopping.rule == "none"
    assert dict(spec.early_stopping.options) == {}


def test_overrides_replace_top_level_keys_and_their_synonyms() -> None:
    text = "metric: loss\nstrategy: grid\ncountOfSelections: 3\nparameters:\n  a: [1, 2, 3, 4]\n"
    spec = parse_spec(text, overrides={"trials": 10, "parallel": 2, "strategy": "random", "seed": None})
    assert (spec.trials, spec.parallel, spec.strategy.name, spec.seed) == (10, 2, "random", None)


def test_dict_input_gives_the_same_spec_as_yaml() -> None:
    text = (EXAMPLES / "mlp.yaml").read_text()
    import yaml

    assert parse_spec(yaml.safe_load(text)) == parse_spec(text)


@pytest.mark.parametrize("example", ["mlp.yaml", "legion.yaml", "katib.yaml"])
def test_round_trip_through_json(example: str) -> None:
    spec = parse_spec((EXAMPLES / example).read_text())
    data = json.loads(json.dumps(spec.to_dict()))
    assert parse_spec(data) == spec


def test_round_trip_of_every_parameter_form_and_kubernetes_resources() -> None:
    spec = parse_spec("""
metric: loss
strategy: {name: fixed, configs: [{a: 5}]}
early_stopping: {rule: hyperband, max_t: 9}
parameters:
  a: {type: int, min: 1, max: 9, step: 2, default: 3}
  b: {distribution: normal, mu: 0, sigma: 1, min: -2, max: 2, step: 0.5}
  c: {values: [x, 2, true], default: 2}
  d: {distribution: logUniform, min: 1.0e-3, max: 1, default: 0.01}
  e: {type: int, min: 1, max: 100, log: true}
  f: fixed
resources:
  cluster: kubernetes
  workers: 3
  threads_per_worker: 2
  requests: {cpu: 250m, memory: 1e9, nvidia.com/gpu: 1}
  limits: {cpu: 0.5, memory: 2G, nvidia.com/gpu: 1}
  kubernetes:
    image: ghcr.io/example/trainer:1
    namespace: ml
    env: {MODE: fast, LEVEL: 3}
    node_selector: {pool: gpu}
    tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
    adapt: {minimum: 1, maximum: 5}
    keep: false
    timeout: 120
""")
    assert parse_spec(json.loads(json.dumps(spec.to_dict()))) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert spec.resources.kubernetes["env"]["LEVEL"] == "3"
    assert spec.resources.kubernetes["adapt"]["maximum"] == 5


def test_spec_is_immutable() -> None:
    spec = parse_spec("metric: loss\n")
    with pytest.raises(AttributeError):
        spec.trials = 3  # type: ignore[misc]


def test_a_search_stored_before_lists_were_ordered_reads_back_as_it_started() -> None:
    """A stored spec writes each list with its type: a list of numbers read as categorical then
    stays categorical (and a list of one value a categorical of one) when the search resumes."""
    stored = {"metric": "loss", "parameters": {"batch": {"type": "categorical", "list": [64, 32, 128]},
                                               "one": {"type": "categorical", "list": [3]}}}
    space = parse_spec(stored).space
    assert space["batch"] == CategoricalParameter("batch", (64, 32, 128))
    assert space["one"] == CategoricalParameter("one", (3,))


def test_a_new_search_stores_its_ordered_lists_as_ordered() -> None:
    spec = parse_spec("metric: loss\nparameters:\n  batch: [64, 32, 128]\n"
                      "  seed: {values: [1, 7], ordered: false}\n")
    again = parse_spec(spec.to_dict())
    assert again.space == spec.space
    assert again.space["batch"] == OrdinalParameter("batch", (32, 64, 128))
    assert again.space["seed"] == CategoricalParameter("seed", (1, 7))
