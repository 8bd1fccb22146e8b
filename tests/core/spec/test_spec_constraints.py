"""``constraints:`` in a spec: the forms read, the round trip, and one clear error per mistake."""

from __future__ import annotations

import pytest

from hpnb.core.constraints import Constraint
from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec

BASE = "metric: loss\nparameters:\n  x: {type: float, min: 0, max: 1}\n"


def spec(constraints: str) -> str:
    return BASE + "constraints: " + constraints + "\n"


def test_max_min_and_both_are_read_and_round_trip():
    parsed = parse_spec(spec("{model_size: {max: 1.0e6}, latency_ms: {max: 20}, acc: {min: 0.8, max: 1}}"))
    assert parsed.constraints == (Constraint("model_size", max=1e6), Constraint("latency_ms", max=20.0),
                                  Constraint("acc", min=0.8, max=1.0))
    assert parsed.to_dict()["constraints"] == {"model_size": {"max": 1e6}, "latency_ms": {"max": 20.0},
                                               "acc": {"min": 0.8, "max": 1.0}}
    assert parse_spec(parsed.to_dict()) == parsed


def test_a_spec_without_constraints_has_none_and_writes_none():
    parsed = parse_spec(BASE)
    assert parsed.constraints == () and "constraints" not in parsed.to_dict()


def test_the_searchs_own_objective_may_be_constrained():
    assert parse_spec(spec("{loss: {max: 0.5}}")).constraints == (Constraint("loss", max=0.5),)


@pytest.mark.parametrize(("constraints", "path", "words"), [
    ("{latency_ms: 20}", "constraints.latency_ms", "{max: 20} or {min: 20}"),
    ("{latency_ms: {mx: 20}}", "constraints.latency_ms.mx", "did you mean 'max'"),
    ("{latency_ms: {max: fast}}", "constraints.latency_ms.max", "must be a number"),
    ("{latency_ms: {max: true}}", "constraints.latency_ms.max", "not a boolean"),
    ("{latency_ms: {max: .nan}}", "constraints.latency_ms.max", "finite"),
    ("{latency_ms: {min: 5, max: 1}}", "constraints.latency_ms.min", "is more than max (1)"),
    ("{latency_ms: {}}", "constraints.latency_ms", "has no bound"),
    ("[latency_ms]", "constraints", "must be a mapping"),
])
def test_bad_constraints_name_the_field_and_what_is_allowed(constraints, path, words):
    with pytest.raises(SpecError) as caught:
        parse_spec(spec(constraints))
    message = str(caught.value)
    assert caught.value.path == path and words in message, message
    assert "[line 4]" in message  # the YAML line of the constraints


def test_an_unknown_top_level_key_near_constraints_is_suggested():
    with pytest.raises(SpecError, match="did you mean 'constraints'"):
        parse_spec(BASE + "constraint: {x: {max: 1}}\n")
