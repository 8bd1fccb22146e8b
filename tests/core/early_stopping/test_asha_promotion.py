"""ASHA's promotion type (``type: promotion``) against hand-computed cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.early_stopping.base import Decision
from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.core.trial import TrialState

C, S, P = Decision.CONTINUE, Decision.STOP, Decision.PAUSE


def promotion(**options: Any) -> ASHA:
    return ASHA(**{"mode": "min", "grace": 1, "reduction": 3, "max_t": 10, "type": "promotion", **options})


def test_trials_pause_at_rungs_and_the_best_floor_n_over_reduction_go_on() -> None:
    rule = promotion()   # rungs 1, 3, 9
    rows: list[tuple[Any, ...]] = [
        # trial step value expected    values at the rung (n) -> the best floor(n/3) go on
        (0, 1, 0.50, P),   # rung 1: n=1, keep 0: even the first trial waits
        (1, 1, 0.60, P),   # n=2, keep 0
        (2, 1, 0.90, P),   # n=3, keep 1: the best is 0, paused
        ("promote", [0, 1], [0]),
        ("promote", [1, 2], []),   # the one place is taken: 0 went on
        (3, 1, 0.40, C),   # n=4, keep 1: 3 is the best and goes on at once
        (4, 1, 0.55, P),   # n=5, keep 1
        (5, 1, 0.52, P),   # n=6, keep 2: 5 is 3rd (.40 .50 better)
        ("promote", [1, 2, 4, 5], []),   # the best 2 (3 and 0) went on already
        (6, 1, 0.30, C),   # n=7, keep 2: the best
        (0, 3, 0.35, P),   # rung 3: n=1, keep 0
        (3, 3, 0.20, P),   # rung 3: n=2, keep 0
        (6, 3, 0.25, P),   # rung 3: n=3, keep 1: the best is 3, paused
        (7, 1, 0.42, P),   # rung 1: n=8, keep 2: 3rd
        (8, 1, 0.47, P),   # rung 1: n=9, keep 3: 7 is 3rd (.30 .40 better) now, 8 is 5th
        ("promote", [0, 1, 2, 3, 4, 5, 6, 7, 8], [3, 7]),   # the highest rung first
        (3, 9, 0.10, P),   # rung 9: n=1, keep 0
        ("promote", [3], []),
    ]
    for number, (trial, *rest) in enumerate(rows, 1):
        if trial == "promote":
            candidates, expected = rest
            assert rule.promote(candidates) == expected, f"row {number}"
        else:
            step, value, decision = rest
            assert rule.on_result(trial, step, value) is decision, f"row {number}"
    assert rule.waiting_for_promotion() == {0, 1, 2, 3, 4, 5, 6, 8}  # all but 7, on its way to rung 3


def test_a_result_at_max_t_ends_the_trial_without_a_pause() -> None:
    rule = promotion()
    assert rule.on_result(0, 1, 0.5) is P and rule.promote([0], anyway=True) == [0]
    assert rule.on_result(0, 10, 0.4) is S    # past rungs 3 and 9 to max_t: the budget ends it there
    assert rule.waiting_for_promotion() == set()


def test_max_mode_ranks_higher_values_first() -> None:
    rule = promotion(mode="max", reduction=2)   # n=2 keep 1
    assert rule.on_result(0, 1, 0.5) is P
    assert rule.on_result(1, 1, 0.9) is C
    assert rule.on_result(2, 1, 0.7) is P and rule.promote([0, 2]) == []
    assert rule.on_result(3, 1, 0.1) is P and rule.promote([0, 2, 3]) == [2]   # n=4 keep 2


def test_a_trial_that_cannot_pause_is_judged_as_the_stopping_type_would() -> None:
    rule = promotion()
    assert rule.on_result(0, 1, 0.5) is P
    assert rule.without_pause(0) is C       # n=1: ceil(1/3) = 1 goes on, as the stopping type's first
    assert rule.on_result(1, 1, 0.6) is P
    assert rule.without_pause(1) is S       # n=2: ceil(2/3) = 1, and 0 is better
    assert rule.on_result(1, 2, 0.1) is S   # a stopped trial stays stopped
    assert rule.waiting_for_promotion() == set()


def test_a_result_past_several_rungs_is_recorded_at_each_and_waits_at_the_first_it_must() -> None:
    rule = promotion(reduction=2, max_t=None)   # rungs 1, 2, 4, 8, ...
    assert rule.on_result(0, 1, 0.1) is P
    assert rule.on_result(1, 1, 0.2) is P and rule.promote([0, 1]) == [0]   # n=2 keep 1
    assert rule.on_result(0, 4, 0.05) is P    # rung 2: n=1, keep 0: it waits there
    assert rule.state_dict()["paused"] == [[1, 1, 1, 0.2], [0, 2, 4, 0.05]]
    assert rule.without_pause(0) is C         # rungs 2 and 4 as the stopping type: first at each
    assert [level for level, _ in rule.state_dict()["rungs"]] == [1, 2, 4]


def test_the_user_resuming_a_trial_promotes_it_anyway() -> None:
    rule = promotion()
    assert rule.on_result(0, 1, 0.5) is P
    assert rule.promote([0]) == [] and rule.promote([0], anyway=True) == [0]
    assert rule.on_result(0, 2, 0.4) is C     # it went on from rung 1; no rung at 2


def test_state_round_trip_keeps_rungs_promotions_and_waiting_trials() -> None:
    rule = promotion()
    for trial, value in ((0, 0.5), (1, 0.6), (2, 0.9)):
        rule.on_result(trial, 1, value)
    assert rule.promote([0]) == [0]
    state = json.loads(json.dumps(rule.state_dict(), allow_nan=False))
    resumed = promotion()
    resumed.load_state_dict(state)
    assert resumed.waiting_for_promotion() == {1, 2}
    assert resumed.on_result(3, 1, 0.55) is P          # n=4 keep 1: 0 is best and went on already
    assert resumed.on_result(4, 1, 0.1) is C           # n=5 keep 1: the best now
    assert resumed.on_result(5, 1, 0.2) is C           # n=6 keep 2: 2nd
    assert resumed.promote([1, 2, 3]) == []
    assert resumed.state_dict() == json.loads(json.dumps(resumed.state_dict(), allow_nan=False))


def test_an_ended_trial_waits_for_no_promotion() -> None:
    rule = promotion()
    assert rule.on_result(0, 1, 0.5) is P
    rule.on_trial_end(0, TrialState.STOPPED)
    assert rule.waiting_for_promotion() == set() and rule.promote([0]) == []


def test_decision_points_are_the_rungs_and_max_t() -> None:
    points = promotion().decision_points()
    assert [step for step in range(1, 12) if points.crossed(step - 1, step)] == [1, 3, 9, 10]
    assert promotion().decision_points() == ASHA(grace=1, reduction=3, max_t=10).decision_points()


def test_the_stopping_type_never_pauses_nor_promotes() -> None:
    rule = ASHA(mode="min", grace=1, reduction=3, max_t=10, type="stopping")
    assert rule.on_result(0, 1, 0.5) is C and rule.on_result(1, 1, 0.6) is S
    assert rule.promote([0, 1], anyway=True) == [] and rule.waiting_for_promotion() == set()


@pytest.mark.parametrize(("early_stopping", "field", "says"), [
    ({"rule": "asha", "type": "promoted"}, "early_stopping.type", "unknown ASHA type"),
    ({"rule": "asha", "type": 2}, "early_stopping.type", "unknown ASHA type"),
    ({"rule": "hyperband", "max_t": 9, "type": "promotion"}, "early_stopping.type",
     "is not an option of the hyperband rule"),
    ({"rule": "median", "type": "promotion"}, "early_stopping.type", "is not an option of the median rule"),
])
def test_bad_types_are_spec_errors_naming_the_field(early_stopping: dict[str, Any], field: str,
                                                   says: str) -> None:
    with pytest.raises(SpecError) as error:
        parse_spec({"metric": "loss", "parameters": {"x": [1, 2]}, "early_stopping": early_stopping})
    assert error.value.path == field and says in str(error.value)
    if says == "unknown ASHA type":
        assert "stopping" in str(error.value) and "promotion" in str(error.value)  # what is allowed


def test_a_spec_with_the_promotion_type_parses() -> None:
    spec = parse_spec({"metric": "loss", "parameters": {"x": [1, 2]},
                       "early_stopping": {"rule": "asha", "type": "promotion", "max_t": 9}})
    assert spec.to_dict()["early_stopping"] == {"rule": "asha", "type": "promotion", "max_t": 9}
