"""Every invalid spec raises one SpecError naming the field, the value, what is allowed and the line."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec

KATIB_DUPLICATE = """metric: loss
parameters:
  - name: lr
    parameterType: double
    feasibleSpace: {min: "0.1", max: "0.2"}
  - name: lr
    parameterType: int
    feasibleSpace: {min: "1", max: "2"}
"""
BIG_GRID = """metric: loss
strategy: grid
parameters:
  a: {type: int, min: 1, max: 1000}
  b: {type: int, min: 1, max: 1000}
"""

# (id, spec text, field path, fragment of the value, fragment of what is allowed, line)
CASES: list[tuple[str, str, str, str | None, str | None, int | None]] = [
    ("unknown-top-level-key", "metric: loss\nstrategyy: random\n", "strategyy", "'strategyy'",
     "did you mean 'strategy'", 2),
    ("unknown-strategy", "metric: loss\nstrategy: randon\n", "strategy", "'randon'",
     "did you mean 'random'", 2),
    ("unknown-strategy-in-mapping", "metric: loss\nstrategy:\n  name: tpee\n", "strategy.name", "'tpee'",
     "allowed: fixed, grid, range, random", 3),
    ("unknown-strategy-option", "metric: loss\nstrategy: {name: grid, shufle: true}\nparameters: {a: [1]}\n",
     "strategy.shufle", "'shufle'", "did you mean 'shuffle'", 2),
    ("unknown-distribution", "metric: loss\nparameters:\n  lr: {distribution: logUnifrom, min: 1, max: 2}\n",
     "parameters.lr.distribution", "'logUnifrom'", "did you mean 'logUniform'", 3),
    ("unknown-rule", "metric: loss\nearly_stopping:\n  rule: ashaa\n", "early_stopping.rule", "'ashaa'",
     "did you mean 'asha'", 3),
    ("unknown-rule-option", "metric: loss\nearly_stopping: {rule: asha, grase: 1}\n", "early_stopping.grase",
     "'grase'", "did you mean 'grace'", 2),
    ("unknown-parameter-type", "metric: loss\nparameters:\n  - name: lr\n    parameterType: duoble\n",
     "parameters.lr.parameterType", "'duoble'", "did you mean 'double'", 4),
    ("unknown-parameter-key", "metric: loss\nparameters:\n  lr: {min: 1, maxx: 2}\n", "parameters.lr.maxx",
     "'maxx'", "did you mean 'max'", 3),
    ("min-not-below-max", "metric: loss\nparameters:\n  lr:\n    min: 2.0\n    max: 1.0\n",
     "parameters.lr.max",
     "1.0", "a number above 2.0", 5),
    ("int-min-not-below-max", "metric: loss\nparameters:\n  n: {type: int, min: 4, max: 4}\n",
     "parameters.n.max", "4", "an integer above 4", 3),
    ("log-uniform-bound-zero", "metric: loss\nparameters:\n"
     "  lr: {distribution: logUniform, min: 0, max: 1}\n",
     "parameters.lr.min", "0.0", "> 0", 3),
    ("log-normal-bound-negative",
     "metric: loss\nparameters:\n  lr: {distribution: logNormal, min: -1, max: 1}\n",
     "parameters.lr.min", "-1.0", "> 0", 3),
    ("step-zero", "metric: loss\nparameters:\n  lr: {min: 0.0, max: 1.0, step: 0}\n", "parameters.lr.step",
     "0.0", "greater than 0", 3),
    ("step-larger-than-range", "metric: loss\nparameters:\n  lr: {min: 0.0, max: 1.0, step: 2}\n",
     "parameters.lr.step", "2.0", "at most 1", 3),
    ("empty-categorical", "metric: loss\nparameters:\n  opt: []\n", "parameters.opt", "[]",
     "one or more values", 3),
    ("empty-katib-list", "metric: loss\nparameters:\n  - {name: opt, parameterType: categorical, "
     "feasibleSpace: {list: []}}\n", "parameters.opt.list", "[]", "one or more values", 3),
    ("duplicate-number", "metric: loss\nparameters:\n  depth: [2, 4, 2.0]\n", "parameters.depth.list",
     "2", "each value once", 3),
    ("duplicate-label", "metric: loss\nparameters:\n  opt: [sgd, adam, sgd]\n", "parameters.opt.list",
     "'sgd'", None, 3),
    ("ordered-strings", "metric: loss\nparameters:\n  opt: {values: [sgd, adam], ordered: true}\n",
     "parameters.opt.ordered", "True", "numbers", 3),
    ("unordered-strings", "metric: loss\nparameters:\n  opt:\n    values: [sgd, adam]\n    ordered: false\n",
     "parameters.opt.ordered", "False", "a list of labels is categorical", 5),
    ("ordered-default-not-a-value", "metric: loss\nparameters:\n  d: {values: [1, 2], default: 3}\n",
     "parameters.d.default", "3", "1, 2", 3),
    ("ordered-not-a-bool", "metric: loss\nparameters:\n  d: {values: [1, 2], ordered: maybe}\n",
     "parameters.d.ordered", "'maybe'", None, 3),
    ("duplicate-katib-name", KATIB_DUPLICATE, "parameters.lr", "'lr'", "each name once", 6),
    ("duplicate-yaml-key", "metric: loss\nparameters:\n  lr: [1, 2]\n  lr: [3]\n", "parameters.lr", "'lr'",
     "first given on line 3", 4),
    ("normal-without-scale", "metric: loss\nparameters:\n  d: {distribution: normal, mu: 0.3}\n",
     "parameters.d.sigma", None, "needs a scale, sigma", 3),
    ("normal-scale-zero", "metric: loss\nparameters:\n  d:\n    distribution: normal\n    mu: 0.3\n"
     "    sigma: 0\n", "parameters.d.sigma", "0.0", "greater than 0", 6),
    ("grid-over-continuous", "metric: loss\nstrategy: grid\nparameters:\n  lr: {min: 0.1, max: 1.0}\n",
     "parameters.lr.step", None, "add step", 4),
    ("range-over-continuous", "metric: loss\nstrategy: range\nparameters:\n  lr: \"[0.1, 1]\"\n",
     "parameters.lr.step", None, "add step", 4),
    ("range-without-ranged-parameter", "metric: loss\nstrategy: range\nparameters:\n  lr: 0.1\n",
     "parameters", None, "a parameter with a range", 3),
    ("trials-zero", "metric: loss\ntrials: 0\n", "trials", "0", "an integer >= 1", 2),
    ("count-of-selections-negative", "metric: loss\ncountOfSelections: -3\n", "trials", "-3",
     "an integer >= 1", 2),
    ("trials-and-synonym", "metric: loss\ntrials: 3\ncountOfSelections: 4\n", "countOfSelections", "4",
     "either trials or countOfSelections", 3),
    ("parallel-zero", "metric: loss\nparallel: 0\n", "parallel", "0", "an integer >= 1", 2),
    ("workers-zero", "metric: loss\nresources:\n  workers: 0\n", "resources.workers", "0",
     "an integer >= 1", 3),
    ("malformed-cpu", "metric: loss\nresources:\n  limits: {cpu: 2 cores}\n", "resources.limits.cpu",
     "'2 cores'", "millicores", 3),
    ("malformed-memory", "metric: loss\nresources:\n  requests:\n    memory: 4GB\n",
     "resources.requests.memory", "'4GB'", "did you mean '4G'", 4),
    ("memory-in-millibytes", "metric: loss\nresources:\n  limits: {memory: 4024m}\n",
     "resources.limits.memory",
     "'4024m'", "did you mean '4024Mi'", 3),
    ("request-above-limit", "metric: loss\nresources:\n  requests: {memory: 8Gi}\n  limits: {memory: 4Gi}\n",
     "resources.requests.memory", "'8Gi'", "at most the limit 4Gi", 3),
    ("unknown-resource", "metric: loss\nresources:\n  limits: {gpu: 1}\n", "resources.limits.gpu", "'gpu'",
     "did you mean 'nvidia.com/gpu'", 3),
    ("unknown-cluster", "metric: loss\nresources: {cluster: kubernets}\n", "resources.cluster", "'kubernets'",
     "did you mean 'kubernetes'", 2),
    ("metric-missing", "mode: min\nparameters: {a: [1, 2]}\n", "metric", None, "metric: followed by", None),
    ("metric-not-a-name", "metric: [a, b]\n", "metric", "['a', 'b']", "the name of a metric", 1),
    ("mode-unknown", "metric: loss\nmode: lowest\n", "mode", "'lowest'", "allowed: min, max", 2),
    ("boolean-trials", "metric: loss\ntrials: yes\n", "trials", "True", "an integer >= 1", 2),
    ("boolean-bound", "metric: loss\nparameters:\n  lr: {min: true, max: 2.0}\n", "parameters.lr.min", "True",
     "a number", 3),
    ("boolean-quantity", "metric: loss\nresources:\n  limits: {cpu: true}\n", "resources.limits.cpu", "True",
     "cores", 3),
    ("grid-above-cap", BIG_GRID, "strategy", None, "a sampling strategy", 2),
    ("string-is-not-a-number", "metric: loss\nparameters:\n  lr: {min: low, max: 2.0}\n", "parameters.lr.min",
     "'low'", "a number", 3),
    ("int-normal", "metric: loss\nparameters:\n  n: {type: int, min: 1, max: 5, distribution: normal}\n",
     "parameters.n.distribution", "'normal'", "use type: double", 3),
    ("discrete-not-numbers", "metric: loss\nparameters:\n  n: {type: discrete, list: [a, b]}\n",
     "parameters.n.list.0", "'a'", "discrete values are numbers", 3),
    ("mu-on-uniform", "metric: loss\nparameters:\n"
     "  n: {distribution: uniform, min: 0.0, max: 1.0, mu: 0.5}\n",
     "parameters.n.mu", "0.5", "mu and sigma are for normal", 3),
    ("kubernetes-section-without-kubernetes", "metric: loss\nresources:\n  kubernetes: {image: x}\n",
     "resources.kubernetes", "'local'", "cluster: kubernetes", 3),
    ("negative-seed", "metric: loss\nseed: -1\n", "seed", "-1", "an integer >= 0", 2),
    ("experiment-name-with-slash", "name: ../etc\nmetric: loss\n", "name", "'../etc'", "letters, digits", 1),
]


@pytest.mark.parametrize(("text", "path", "value", "allowed", "line"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_invalid_spec(text: str, path: str, value: str | None, allowed: str | None, line: int | None) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(text)
    err = caught.value
    message = str(err)
    assert err.path == path
    assert message.startswith(f"{path}: ")
    if value is not None:
        assert f"(got {value}" in message
    if allowed is not None:
        assert allowed in message
    assert err.line == line
    if line is not None:
        assert message.endswith(f"[line {line}]")


def test_yaml_syntax_error_names_its_line() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec("metric: loss\nmode: min: max\ntrials: 3\n")
    assert caught.value.line == 2
    assert "YAML syntax error" in str(caught.value)
    assert str(caught.value).endswith("[line 2]")


def test_unclosed_bracket_is_a_syntax_error() -> None:
    with pytest.raises(SpecError, match=r"YAML syntax error.*\[line \d+\]"):
        parse_spec("metric: loss\nparameters:\n  lr: [1, 2\n")


@pytest.mark.parametrize(("text", "shown"), [("- metric\n- loss\n", "['metric', 'loss']"),
                                             ("just text\n", "'just text'")])
def test_body_that_is_not_a_mapping(text: str, shown: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(text)
    assert "must be a mapping" in str(caught.value)
    assert f"(got {shown})" in str(caught.value)


def test_empty_body() -> None:
    with pytest.raises(SpecError, match="the spec is empty"):
        parse_spec("# nothing but a comment\n")


def test_unsafe_yaml_tags_are_refused() -> None:
    with pytest.raises(SpecError, match="YAML"):
        parse_spec("metric: !!python/object/apply:os.system ['true']\n")


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(SpecError, match="refers to itself"):
        parse_spec("metric: loss\nparameters: &p\n  a: *p\n")


def test_alias_bomb_is_refused() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(SpecError, match="too large"):
        parse_spec("\n".join(levels) + "\n")


def test_unknown_override_key() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec("metric: loss\n", overrides={"trails": 3})
    assert caught.value.path == "trails"
    assert "did you mean 'trials'" in str(caught.value)


def test_override_value_is_validated_without_a_line() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec("metric: loss\ntrials: 5\n", overrides={"trials": 0})
    assert caught.value.path == "trials"
    assert caught.value.line is None


def test_dict_input_errors_name_the_field() -> None:
    spec: dict[str, Any] = {"metric": "loss", "parameters": {"lr": {"min": 1.0, "max": 0.5}}}
    with pytest.raises(SpecError) as caught:
        parse_spec(spec)
    assert caught.value.path == "parameters.lr.max"
    assert caught.value.line is None


def test_source_of_the_wrong_type() -> None:
    with pytest.raises(SpecError, match="YAML text or a mapping"):
        parse_spec(42)  # type: ignore[arg-type]


def test_errors_from_strategy_options_point_at_the_strategy_line() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec("metric: loss\nparameters:\n  a: [1, 2]\nstrategy:\n  name: fixed\n  configs:\n"
                   "    - {a: 3}\n")
    assert caught.value.path.startswith("strategy.configs")
    assert caught.value.line == 7


def test_spec_error_survives_pickling() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec("metric: loss\ntrials: 0\n")
    again = pickle.loads(pickle.dumps(caught.value))
    assert str(again) == str(caught.value)


@pytest.mark.parametrize(("strategy", "path", "message"), [
    ("{name: random, synch: true}", "strategy.synch", "is not an option of the random strategy"),
    ("{name: pbt, synch: yes please}", "strategy.synch", "must be true or false"),
    ("{name: pbt, ready: 8, max_steps: 5}", "strategy.ready", "is more than max_steps"),
])
def test_synchronous_pbt_options_name_the_field(strategy: str, path: str, message: str) -> None:
    text = f"metric: loss\nparameters:\n  lr: {{min: 0.1, max: 1.0}}\nstrategy: {strategy}\n"
    with pytest.raises(SpecError, match=message) as error:
        parse_spec(text)
    assert error.value.path == path and error.value.line == 4


def test_median_every_must_be_a_positive_integer() -> None:
    with pytest.raises(SpecError, match=r"early_stopping\.every") as error:
        parse_spec("metric: loss\nparameters: {lr: {min: 0.1, max: 1.0}}\n"
                   "early_stopping: {rule: median, every: 0}\n")
    assert error.value.line == 3
