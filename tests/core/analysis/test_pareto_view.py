"""The Pareto view: which trials are drawn, their ranks, the front of the pair shown, and its bounds."""

from __future__ import annotations

import pytest

from hpnb.core.analysis import pareto_view
from hpnb.core.errors import HpnbError
from hpnb.core.objectives import Objective
from hpnb.core.store import TrialRecord

THREE = (Objective("loss", "min"), Objective("latency", "min"), Objective("accuracy", "max"))


def trial(i: int, state: str = "COMPLETED", **metrics: float) -> TrialRecord:
    return TrialRecord(1, i, {"w": i}, state, 0.0, 1.0, None, None, 0, None, None,
                       metrics.get("loss"), None, metrics, None, None)


TRIALS = [trial(0, loss=0.9, latency=1.0, accuracy=0.5), trial(1, loss=0.5, latency=5.0, accuracy=0.7),
          trial(2, loss=0.6, latency=6.0, accuracy=0.9), trial(3, loss=0.7, latency=7.0, accuracy=0.6),
          trial(4, "FAILED", loss=0.0, latency=0.0, accuracy=1.0), trial(5, loss=0.1)]


def test_points_carry_the_search_rank_and_the_line_is_the_front_of_the_pair_shown() -> None:
    view = pareto_view(TRIALS, THREE)
    assert (view.x.name, view.y.name, view.scored) == ("loss", "latency", 4)
    assert {p.trial_id: p.rank for p in view.points} == {0: 0, 1: 0, 2: 0, 3: 1}  # 2 wins on accuracy
    assert view.front == [1, 0]  # on loss and latency alone, 2 and 3 are beaten by 1
    accuracy = pareto_view(TRIALS, THREE, x="accuracy", y="loss")
    assert accuracy.front == [1, 2] and [p.x for p in accuracy.points][:3] == [0.5, 0.7, 0.9]


def test_failed_trials_and_trials_without_every_objective_are_not_drawn() -> None:
    assert {p.trial_id for p in pareto_view(TRIALS, THREE).points} == {0, 1, 2, 3}


@pytest.mark.parametrize(("objectives", "x", "y", "message"), [
    (THREE[:1], None, None, "needs two or more"),
    (THREE, "speed", None, "'speed' is not an objective"),
    (THREE, "loss", "loss", "both 'loss'"),
])
def test_a_view_that_cannot_be_drawn_says_why(objectives, x, y, message) -> None:
    with pytest.raises(HpnbError, match=message):
        pareto_view(TRIALS, objectives, x, y)


def test_ten_thousand_trials_send_the_front_and_an_even_sample() -> None:
    many = [trial(i, loss=(i * 37 % 1000) / 1000, latency=(i * 91 % 997) / 997, accuracy=0.5)
            for i in range(10_000)]
    view = pareto_view(many, THREE, limit=2_000)
    assert len(view.points) == 2_000 and view.scored == 10_000
    front = [p for p in view.points if p.rank == 0]
    assert front and [p.rank for p in view.points] == sorted(p.rank for p in view.points)
    assert set(view.front) <= {p.trial_id for p in front}
