"""enqueue: and warm_start: in a spec: what is accepted, the budget, and one error per mistake."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import DEFAULT_TRIALS, parse_spec

SPACE = """parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 0.1}
  layers: {type: int, min: 1, max: 4}
  optimizer: [sgd, adam]
  momentum: {min: 0.5, max: 0.99, when: {optimizer: sgd}}
  epochs: 10
"""


def spec(text: str):
    return parse_spec("metric: loss\n" + text + SPACE)


def test_enqueued_configurations_are_kept_in_order_and_round_trip() -> None:
    parsed = spec("strategy: tpe\nenqueue:\n  - {lr: 0.01, layers: 2}\n  - {optimizer: sgd, momentum: 0.9}\n")
    given = [{"lr": 0.01, "layers": 2}, {"optimizer": "sgd", "momentum": 0.9}]
    assert [dict(c) for c in parsed.enqueue] == given
    assert parsed.to_dict()["enqueue"] == given
    assert parse_spec(parsed.to_dict()) == parsed


@pytest.mark.parametrize(("text", "trials"), [
    ("enqueue: [{lr: 0.01}, {lr: 0.02}]\n", DEFAULT_TRIALS + 2),     # the strategy's own budget and them
    ("trials: 5\nenqueue: [{lr: 0.01}, {lr: 0.02}]\n", 5),            # they count in a given budget
    ("strategy: {name: pbt, population: 4}\nenqueue: [{lr: 0.01}]\n", 4),  # members of the population
])
def test_enqueued_configurations_count_in_the_budget(text: str, trials: int) -> None:
    assert spec(text).trials == trials


def test_a_grid_runs_its_points_after_the_enqueued_ones() -> None:
    parsed = parse_spec("metric: loss\nstrategy: grid\nenqueue: [{a: 2}]\nparameters:\n  a: [1, 2, 3]\n")
    assert parsed.trials == 4


def test_warm_start_names_a_search_in_either_form() -> None:
    assert spec("strategy: tpe\nwarm_start: {from: mlp-v1}\n").warm_start == "mlp-v1"
    assert spec("strategy: cmaes\nwarm_start: mlp-v1\n").warm_start == "mlp-v1"
    parsed = spec("strategy: nsga2\nwarm_start: {from: mlp-v1}\n")
    assert parsed.to_dict()["warm_start"] == {"from": "mlp-v1"} and parse_spec(parsed.to_dict()) == parsed


# (id, spec text, field path, fragment of the message, line)
CASES = [
    ("unknown-parameter", "enqueue:\n  - {lrr: 0.01}\n", "enqueue[0].lrr", "did you mean 'lr'", 2),
    ("outside-the-range", "enqueue:\n  - {lr: 0.01}\n  - {lr: 5}\n", "enqueue[1].lr",
     "not a value the parameter can take (got 5)", 3),
    ("not-a-choice", "enqueue: [{optimizer: adamw}]\n", "enqueue[0].optimizer",
     "allowed: categorical [sgd, adam]", 1),
    ("not-an-integer", "enqueue: [{layers: 2.5}]\n", "enqueue[0].layers", "(got 2.5)", 1),
    ("a-fixed-value-changed", "enqueue: [{epochs: 20}]\n", "enqueue[0].epochs", "(got 20)", 1),
    ("inactive", "enqueue: [{optimizer: adam, momentum: 0.9}]\n", "enqueue[0].momentum",
     "used only when optimizer: sgd", 1),
    ("condition-not-given", "enqueue: [{momentum: 0.9}]\n", "enqueue[0].momentum", "used only when", 1),
    ("not-a-list", "enqueue: {lr: 0.01}\n", "enqueue", "must be a list of configurations", 1),
    ("not-a-mapping", "enqueue: [0.01]\n", "enqueue[0]", "must be a mapping", 1),
    ("fewer-trials", "trials: 1\nenqueue: [{lr: 0.01}, {lr: 0.02}]\n", "trials", "at least 2", 1),
    ("more-than-the-population", "strategy: {name: pbt, population: 2}\nenqueue: [{lr: 0.01}, {lr: 0.02}, "
     "{lr: 0.03}]\n", "enqueue", "more than the 2 trials", 2),
    ("warm-start-of-random", "warm_start: {from: old}\n", "warm_start",
     "allowed: strategy: tpe, cmaes, nsga2", 1),
    ("warm-start-key", "strategy: tpe\nwarm_start: {form: old}\n", "warm_start.form",
     "did you mean 'from'", 2),
    ("warm-start-name", "strategy: tpe\nwarm_start: {from: 'no way'}\n", "warm_start.from", "letters, digits",
     2),
]


@pytest.mark.parametrize(("text", "path", "fragment", "line"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_each_mistake_is_one_error_naming_the_field_and_line(text: str, path: str, fragment: str,
                                                            line: int) -> None:
    with pytest.raises(SpecError) as info:
        spec(text)
    assert info.value.path == path
    assert fragment in str(info.value)
    assert info.value.line == line + 1  # after the metric: line
