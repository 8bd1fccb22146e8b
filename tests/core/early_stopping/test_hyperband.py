"""Asynchronous Hyperband against hand-computed cases."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hpnb.core.early_stopping.base import Decision
from hpnb.core.early_stopping.hyperband import Hyperband, largest_bracket
from hpnb.core.errors import SpecError

C, S = Decision.CONTINUE, Decision.STOP


def test_brackets_from_max_t() -> None:
    assert largest_bracket(1, 3, 81) == 4
    assert largest_bracket(2, 3, 17) == 1    # 2, 6 <= 17 < 18
    rule = Hyperband(max_t=81, grace=1, reduction=3)
    assert [b.grace for b in rule.brackets] == [1, 3, 9, 27, 81]
    assert [list(b.levels()) for b in rule.brackets] == [[1, 3, 9, 27], [3, 9, 27], [9, 27], [27], []]
    assert [b.grace for b in Hyperband(max_t=81, brackets=2).brackets] == [1, 3]


def test_weights_follow_the_paper() -> None:
    # s_max = 4; bracket b has s = 4 - b and weight 5/(s+1) * 3**s: 81, 33.75, 15, 7.5, 5 (sum 142.25)
    rule = Hyperband(max_t=81, grace=1, reduction=3)
    expected = [81 / 142.25, 33.75 / 142.25, 15 / 142.25, 7.5 / 142.25, 5 / 142.25]
    assert rule.weights.tolist() == pytest.approx(expected)
    counts = Counter(rule.bracket_of(tid) for tid in range(4000))
    for bracket, share in enumerate(expected):
        assert counts[bracket] / 4000 == pytest.approx(share, abs=0.03)


def test_weighted_draw_depends_on_seed_and_trial_only() -> None:
    forward = Hyperband(max_t=81, seed=7)
    backward = Hyperband(max_t=81, seed=7)
    ids = list(range(50))
    first = [forward.bracket_of(t) for t in ids]
    assert [backward.bracket_of(t) for t in reversed(ids)][::-1] == first
    assert [Hyperband(max_t=81, seed=8).bracket_of(t) for t in ids] != first


def test_round_robin_brackets_judge_separately() -> None:
    # max_t 9, grace 1, reduction 3: brackets with first rung 1 (rungs 1, 3), 3 (rung 3), 9 (no rung)
    # round robin by first arrival: trial 0 -> b0, 1 -> b1, 2 -> b2, 3 -> b0, 4 -> b1
    rule = Hyperband(mode="min", max_t=9, grace=1, reduction=3, assignment="round_robin")
    rows = [
        (0, 1, 0.50, C),   # b0 rung 1: first
        (1, 1, 0.90, C),   # b1: no rung at 1
        (2, 1, 0.90, C),   # b2: never stops early
        (3, 1, 0.80, S),   # b0 rung 1: .50 .80 (n=2, keep 1): 2nd
        (4, 1, 0.10, C),   # b1: no rung at 1
        (1, 3, 0.60, C),   # b1 rung 3: first
        (4, 3, 0.70, S),   # b1 rung 3: .60 .70 (n=2, keep 1): 2nd
        (2, 3, 0.99, C),   # b2: no rung
        (0, 3, 0.95, C),   # b0 rung 3: first in its bracket (b1's .60 does not count)
        (2, 9, 0.99, S),   # max_t reached
    ]
    for number, (trial, step, value, expected) in enumerate(rows, 1):
        assert rule.on_result(trial, step, value) is expected, f"row {number}"
    assert [rule.bracket_of(t) for t in range(5)] == [0, 1, 2, 0, 1]


def test_state_keeps_assignments_and_rungs() -> None:
    rule = Hyperband(max_t=9, assignment="round_robin")
    rule.on_result(0, 1, 0.5)
    rule.on_result(1, 1, 0.5)
    resumed = Hyperband(max_t=9, assignment="round_robin")
    resumed.load_state_dict(rule.state_dict())
    assert resumed.bracket_of(2) == 2                # the cycle continues where it was
    assert resumed.on_result(3, 1, 0.6) is S         # trial 3 joins b0 and meets trial 0's .5


@pytest.mark.parametrize(("options", "field"), [
    ({}, "early_stopping.max_t"),
    ({"max_t": 9, "brackets": 4}, "early_stopping.brackets"),
    ({"max_t": 9, "assignment": "random"}, "early_stopping.assignment"),
    ({"max_t": 9, "reduction": 0}, "early_stopping.reduction"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError) as error:
        Hyperband(mode="min", **options)
    assert error.value.path == field
