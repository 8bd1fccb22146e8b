"""The median stopping rule against hand-computed cases."""

from __future__ import annotations

from typing import Any

import pytest

from hpnb.core.early_stopping.base import Decision
from hpnb.core.early_stopping.median import MedianStopping
from hpnb.core.errors import SpecError

C, S = Decision.CONTINUE, Decision.STOP
A, B, Cc, D = 0, 1, 2, 3


def run(rule: MedianStopping, rows: list[tuple[int, int, float, Decision]]) -> None:
    for number, (trial, step, value, expected) in enumerate(rows, 1):
        assert rule.on_result(trial, step, value) is expected, f"row {number}: {trial, step, value}"


def test_best_so_far_against_median_of_others() -> None:
    rule = MedianStopping(mode="min", every=1, grace=1, min_trials=2)
    run(rule, [
        # trial step value  expected     others that reached the step (their best <= step) -> median
        (A, 1, 0.90, C),   # none                                   -> too few, continue
        (B, 1, 0.50, C),   # A .90                                  -> 1 < min_trials
        (Cc, 1, 0.70, C),  # A .90, B .50 -> median .70; .70 is not worse than .70
        (D, 1, 0.95, S),   # A .90, B .50, C .70 -> median .70; .95 > .70
        (A, 2, 0.40, C),   # none reached 2
        (B, 2, 0.60, C),   # B's best is .50; only A (.40) reached 2 -> too few
        (Cc, 2, 0.80, S),  # C's best .70; A .40, B .50 -> median .45; .70 > .45
        (A, 3, 0.30, C),   # none reached 3
        (B, 3, 0.45, C),   # only A reached 3
    ])


def test_others_use_their_latest_result_at_or_before_the_step() -> None:
    rule = MedianStopping(mode="min", every=1, grace=1, min_trials=1)
    run(rule, [
        (A, 1, 0.50, C),
        (A, 4, 0.20, C),
        # A reached step 3 (it is at 4) but its value at or before 3 is .50 (step 1): .60 > .50
        (B, 3, 0.60, S),
        # A .50 and the stopped B .60 (stopped trials keep counting) -> median .55; .45 continues
        (Cc, 3, 0.45, C),
    ])


def test_running_average_and_best_differ() -> None:
    rows = [(A, 1, 1.0), (A, 2, 0.2), (B, 1, 0.5), (B, 2, 0.65)]
    average = MedianStopping(mode="min", every=1, min_trials=1, use="average")
    best = MedianStopping(mode="min", every=1, min_trials=1, use="best")
    # at step 2: A's average (1.0 + .2) / 2 = .60, B's average (.5 + .65) / 2 = .575 -> continue
    #            A's best .2, B's best .5 -> stop
    assert [average.on_result(*r) for r in rows][-1] is C
    assert [best.on_result(*r) for r in rows][-1] is S


def test_grace_protects_early_steps() -> None:
    rule = MedianStopping(mode="min", every=1, grace=3, min_trials=1)
    run(rule, [
        (A, 1, 0.1, C), (B, 1, 0.9, C),   # worse than A but step 1 < grace 3
        (A, 2, 0.1, C), (B, 2, 0.9, C),   # step 2 < grace
        (A, 3, 0.1, C), (B, 3, 0.9, S),   # step 3: .9 > .1
    ])


def test_max_mode_prefers_higher_values() -> None:
    rule = MedianStopping(mode="max", every=1, min_trials=1)
    run(rule, [(A, 1, 0.9, C), (B, 1, 0.5, S), (Cc, 1, 0.95, C)])


def test_nan_counts_as_worst() -> None:
    rule = MedianStopping(mode="min", every=1, min_trials=1)
    run(rule, [(A, 1, 0.9, C), (B, 1, float("nan"), S)])


def test_a_rewound_trial_replaces_its_later_results() -> None:
    rule = MedianStopping(mode="min", every=1, min_trials=1, use="average")
    for step, value in ((1, 0.1), (2, 0.1), (3, 0.1), (2, 0.9)):
        rule.on_result(A, step, value)
    assert rule.state_dict() == {"trials": [[A, [[1, 0.1], [2, 0.9]]]]}
    # A's average at step 2 is now .5: B with .45 continues, C with .55 stops
    run(rule, [(B, 2, 0.45, C), (Cc, 2, 0.55, S)])


@pytest.mark.parametrize(("options", "field"), [
    ({"use": "mean"}, "early_stopping.use"),
    ({"min_trials": 0}, "early_stopping.min_trials"),
    ({"grace": -1}, "early_stopping.grace"),
    ({"grace": 1.5}, "early_stopping.grace"),
    ({"min_trial": 3}, "early_stopping.min_trial"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError) as error:
        MedianStopping(mode="min", every=1, **options)
    assert error.value.path == field


def test_misspelled_option_gets_a_suggestion() -> None:
    with pytest.raises(SpecError, match="did you mean 'min_trials'"):
        MedianStopping(mode="min", every=1, min_trial=3)


def test_every_judges_only_at_grace_and_every_steps_after() -> None:
    rule = MedianStopping(mode="min", grace=2, every=3, min_trials=1)
    for step in range(1, 12):
        rule.on_result(0, step, 0.1)
    judged = [step for step in range(1, 12) if rule.on_result(1, step, 0.9) is Decision.STOP]
    assert judged == [2, 5, 8, 11]  # worse than the median at every step, judged at decision steps only
    points = rule.decision_points()
    assert [s for s in range(1, 12) if points.crossed(s - 1, s)] == [2, 5, 8, 11]
    assert points.crossed(5, 8) and not points.crossed(5, 7)
