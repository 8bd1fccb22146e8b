from __future__ import annotations

import math

import pytest

from hpnb.core.analysis.history import optimization_history
from hpnb.core.summary import best_trial
from tests.core.analysis.records import trial


def _mixed():
    """Completed, stopped, failed, running and non-finite trials, ending out of trial order."""
    return [
        trial(0, 0.5, end=40.0),
        trial(1, 0.9, end=10.0),
        trial(2, None, state="FAILED", end=15.0),
        trial(3, 0.3, state="STOPPED", end=30.0),
        trial(4, 0.1, state="RUNNING", end=None),
        trial(5, math.nan, end=20.0),
        trial(6, 0.4, end=25.0),
    ]


def test_finished_trials_with_a_score_in_trial_order_with_the_best_so_far():
    points = optimization_history(_mixed(), "min")
    assert [(p.trial_id, p.state, p.score, p.best, p.is_best) for p in points] == [
        (0, "COMPLETED", 0.5, 0.5, True),
        (1, "COMPLETED", 0.9, 0.5, False),
        (3, "STOPPED", 0.3, 0.3, True),
        (6, "COMPLETED", 0.4, 0.3, False),
    ]
    assert [p.end for p in points] == [40.0, 10.0, 30.0, 25.0]


def test_in_end_order_the_best_so_far_is_the_best_ended_by_then():
    points = optimization_history(_mixed(), "min", order="end")
    assert [(p.trial_id, p.best) for p in points] == [(1, 0.9), (6, 0.4), (3, 0.3), (0, 0.3)]


def test_max_mode_and_the_line_ends_at_the_summary_best_trial():
    trials = [t for t in _mixed() if t.state != "RUNNING"]
    points = optimization_history(trials, "max")
    assert [p.best for p in points] == [0.5, 0.9, 0.9, 0.9]
    for mode in ("min", "max"):
        best = best_trial(trials, mode)
        assert optimization_history(trials, mode)[-1].best == best.value


def test_trials_without_steps_have_a_history_too():
    # a quickstart-like search: one final value per trial, nothing reported before
    trials = [trial(i, v) for i, v in enumerate([3.0, 2.0, 2.5, 1.0])]
    assert [p.best for p in optimization_history(trials, "min")] == [3.0, 2.0, 2.0, 1.0]


def test_another_metric_can_be_followed():
    trials = [trial(0, 0.5, metrics={"acc": 0.7}), trial(1, 0.4, metrics={"acc": "n/a"}),
              trial(2, 0.6, metrics={"acc": 0.8})]
    points = optimization_history(trials, "max", metric="acc")
    assert [(p.trial_id, p.best) for p in points] == [(0, 0.7), (2, 0.8)]


def test_bad_mode_or_order_is_named():
    with pytest.raises(ValueError, match="mode: 'best' is not allowed; allowed: min, max"):
        optimization_history([], "best")
    with pytest.raises(ValueError, match="order: 'time' is not allowed; allowed: trial, end"):
        optimization_history([], "min", order="time")
