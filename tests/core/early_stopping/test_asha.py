"""ASHA against hand-computed cases."""

from __future__ import annotations

from typing import Any

import pytest

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.early_stopping.base import Decision
from hpnb.core.errors import SpecError

C, S = Decision.CONTINUE, Decision.STOP


def test_rungs_are_geometric_below_max_t() -> None:
    assert ASHA(grace=1, reduction=3, max_t=10).rungs() == [1, 3, 9]
    assert ASHA(grace=1, reduction=3, max_t=9).rungs() == [1, 3]
    assert ASHA(grace=2, reduction=2, max_t=20).rungs() == [2, 4, 8, 16]
    assert ASHA(grace=5, reduction=4).rungs()[:3] == [5, 20, 80]


def test_top_third_of_what_is_there_continues() -> None:
    rule = ASHA(mode="min", grace=1, reduction=3, max_t=10)   # rungs 1, 3, 9
    rows = [
        # trial step value expected   values at the rung (n) -> best ceil(n/3) continue
        (0, 1, 0.50, C),   # rung 1: 0 .50 (n=1, keep 1): first one always continues
        (1, 1, 0.60, S),   # rung 1: .50 .60 (n=2, keep 1): 1 is 2nd
        (2, 1, 0.40, C),   # rung 1: n=3, keep 1: 2 is 1st
        (3, 1, 0.45, C),   # rung 1: n=4, keep 2: 3 is 2nd (after .40)
        (4, 1, 0.70, S),   # rung 1: n=5, keep 2: 4 is 5th
        (0, 2, 0.30, C),   # no rung at 2
        (0, 3, 0.35, C),   # rung 3: 0 .35 (n=1)
        (2, 3, 0.20, C),   # rung 3: .35 .20 (n=2, keep 1): 2 is 1st
        (3, 3, 0.30, S),   # rung 3: .35 .20 .30 (n=3, keep 1): 3 is 2nd
        (5, 4, 0.10, C),   # first result past rungs 1 and 3: rung 1 n=6 keep 2, 1st; rung 3 n=4 keep 2, 1st
        (6, 5, 0.42, S),   # rung 1: n=7 keep 3, 3rd (.10 .40 better) -> on; rung 3: n=5 keep 2, 5th -> stop
        (7, 1, 0.40, C),   # rung 1: n=8 keep 3; tie with .40 counts in its favour: 2nd (only .10 better)
        (2, 9, 0.10, C),   # rung 9: first there
        (2, 10, 0.05, S),  # max_t = 10 reached: the budget stops it
    ]
    for number, (trial, step, value, expected) in enumerate(rows, 1):
        assert rule.on_result(trial, step, value) is expected, f"row {number}"


def test_max_mode() -> None:
    rule = ASHA(mode="max", grace=1, reduction=2)
    # rung 1, reduction 2: n=1 keep 1; n=2 keep 1; n=3 keep 2
    assert [rule.on_result(t, 1, v) for t, v in ((0, 0.5), (1, 0.4), (2, 0.6), (3, 0.55))] == [C, S, C, C]


def test_a_trial_is_judged_once_per_rung() -> None:
    rule = ASHA(mode="min", grace=2, reduction=2)   # rungs 2, 4, 8, ...
    assert rule.on_result(0, 2, 0.5) is C
    assert rule.on_result(1, 2, 0.4) is C            # n=2 keep 1: 1st
    # trial 0 restarted from a checkpoint reports step 2 again, better: not re-recorded
    assert rule.on_result(0, 2, 0.1) is C
    assert rule.state_dict()["rungs"] == [[2, [[0, 0.5], [1, 0.4]]]]


def test_stopped_trial_stays_stopped() -> None:
    rule = ASHA(mode="min", grace=1, reduction=2)
    assert [rule.on_result(t, 1, v) for t, v in ((0, 0.1), (1, 0.9))] == [C, S]
    assert rule.on_result(1, 2, 0.0) is S            # a straggling result of a stopped trial


def test_state_keeps_rungs() -> None:
    rule = ASHA(mode="min", grace=1, reduction=2)
    rule.on_result(0, 1, 0.1)
    resumed = ASHA(mode="min", grace=1, reduction=2)
    resumed.load_state_dict(rule.state_dict())
    assert resumed.on_result(1, 1, 0.2) is S          # judged against trial 0 recorded before resuming


@pytest.mark.parametrize(("options", "field"), [
    ({"grace": 0}, "early_stopping.grace"),
    ({"reduction": 1}, "early_stopping.reduction"),
    ({"max_t": 3, "grace": 3}, "early_stopping.max_t"),
    ({"max_t": 0}, "early_stopping.max_t"),
    ({"brackets": 2}, "early_stopping.brackets"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError) as error:
        ASHA(mode="min", **options)
    assert error.value.path == field
