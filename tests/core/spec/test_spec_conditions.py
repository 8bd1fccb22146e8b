"""``when:`` in a spec: the forms it takes, the round trip, and one clear error per mistake."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec

SPEC = """\
metric: loss
strategy: grid
parameters:
  optimizer: [sgd, adam, rmsprop]
  momentum:
    min: 0.5
    max: 0.9
    step: 0.2
    when: {optimizer: sgd}
  rho: {values: [0.9, 0.99], when: {optimizer: [rmsprop, adam]}}
  nesterov: {values: [true, false], when: {optimizer: sgd}}
  dampening: {values: [0, 0.1], when: {nesterov: false, optimizer: sgd}}
"""


def test_the_grid_of_a_conditional_spec_counts_valid_combinations_only() -> None:
    spec = parse_spec(SPEC)
    # sgd: 3 momenta x (nesterov true, or false with 2 dampenings); adam and rmsprop: 2 rhos each
    assert spec.trials == spec.space.grid_size() == 3 * (1 + 2) + 2 + 2
    points = list(spec.space.iter_grid())
    assert len({repr(sorted(p.items())) for p in points}) == len(points) == 13
    assert {"optimizer": "adam", "rho": 0.9} in points
    assert {"optimizer": "sgd", "momentum": 0.7, "nesterov": False, "dampening": 0.1} in points
    assert all(spec.space.contains(p) for p in points)


def test_a_conditional_spec_round_trips_through_its_dict() -> None:
    spec = parse_spec(SPEC)
    assert spec.to_dict()["parameters"]["rho"]["when"] == {"optimizer": ["rmsprop", "adam"]}
    assert parse_spec(spec.to_dict()) == spec


def test_a_katib_list_takes_when_too() -> None:
    spec = parse_spec({"metric": "loss", "parameters": [
        {"name": "optimizer", "parameterType": "categorical", "feasibleSpace": {"list": ["sgd", "adam"]}},
        {"name": "momentum", "parameterType": "double", "feasibleSpace": {"min": "0.5", "max": "0.9"},
         "when": {"optimizer": "sgd"}},
    ]})
    assert spec.space.active({"optimizer": "adam", "momentum": 0.6}) == {"optimizer": "adam"}


@pytest.mark.parametrize(("line", "path", "words", "shown"), [
    ("  lr: {min: 0.1, max: 1.0, when: {lr: 0.5}}", "parameters.lr.when.lr", "itself", "'lr'"),
    ("  lr: {min: 0.1, max: 1.0, when: {optimzer: sgd}}", "parameters.lr.when.optimzer", "unknown parameter",
     "did you mean 'optimizer'"),
    ("  lr: {min: 0.1, max: 1.0, when: {optimizer: adamw}}", "parameters.lr.when.optimizer",
     "not a value optimizer can take", "allowed: sgd, adam, rmsprop"),
    ("  lr: {min: 0.1, max: 1.0, when: {momentum: 0.5}}", "parameters.lr.when.momentum", "continuous",
     "categorical, integer or fixed"),
    ("  lr: {min: 0.1, max: 1.0, when: {nesterov: 1}}", "parameters.lr.when.nesterov",
     "not a value nesterov can take", "allowed: True, False"),
    ("  lr: {min: 0.1, max: 1.0, when: sgd}", "parameters.lr.when", "mapping", "'sgd'"),
    ("  lr: {min: 0.1, max: 1.0, when: {optimizer: []}}", "parameters.lr.when.optimizer", "at least one",
     "[]"),
])
def test_a_bad_condition_is_one_error_naming_the_field_the_value_and_the_line(
        line: str, path: str, words: str, shown: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(SPEC + line)
    assert info.value.path == path
    assert info.value.line == 13
    assert words in str(info.value) and shown in str(info.value)


def test_a_cycle_is_refused_with_the_cycle_spelt_out() -> None:
    text = SPEC + "  a: {values: [1, 2], when: {b: 1}}\n  b:\n    values: [1, 2]\n    when:\n      a: 2\n"
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert info.value.path == "parameters.b.when.a"
    assert info.value.line == 17
    assert "cycle" in str(info.value) and "a -> b -> a" in str(info.value)


def test_the_block_form_points_at_the_line_of_the_condition() -> None:
    text = SPEC.replace("when: {optimizer: sgd}\n  rho", "when:\n      optimizer: sgdd\n  rho")
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert info.value.path == "parameters.momentum.when.optimizer" and info.value.line == 10


def test_large_conditions_are_checked_and_a_grid_of_too_many_branches_is_refused() -> None:
    values = list(range(10_000))
    spec = parse_spec({"metric": "loss", "parameters": {
        "a": values, "c": values, "b": {"values": [1, 2], "when": {"a": values, "c": [2]}}}})
    assert spec.space.active({"a": 5, "c": 2, "b": 1}) == {"a": 5, "c": 2, "b": 1}
    with pytest.raises(SpecError) as info:
        parse_spec({"metric": "loss", "strategy": "grid", "parameters": {
            "a": values, "c": values, "b": {"values": [1, 2], "when": {"a": 1, "c": 2}}}})
    assert info.value.path == "strategy" and "more than 100,000 points" in str(info.value)
