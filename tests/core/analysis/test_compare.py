from __future__ import annotations

from hpnb.core.analysis import compare_searches, search_start
from hpnb.core.store import ExperimentRecord
from tests.core.analysis.records import trial


def _experiment(name: str, mode: str, created: float = 50.0) -> ExperimentRecord:
    return ExperimentRecord(1, name, {}, None, "COMPLETED", 4, 2, "loss", mode, "random",
                            created, created, None, False, None, None, None)


def test_each_search_gets_best_so_far_by_trial_and_by_time_from_its_first_trial():
    a = [trial(0, 0.8, start=100.0, end=130.0), trial(1, 0.5, start=101.0, end=110.0),
         trial(2, None, state="FAILED", start=111.0, end=112.0), trial(3, 0.9, start=112.0, end=120.0)]
    b = [trial(0, 0.2, start=200.0, end=205.0), trial(1, 0.4, start=206.0, end=211.0)]
    curve_a, curve_b = compare_searches([(_experiment("a", "min"), a), (_experiment("b", "max"), b)])
    assert (curve_a.name, curve_a.mode, curve_a.start, curve_b.start) == ("a", "min", 100.0, 200.0)
    assert [(p.trial_id, p.seconds, p.score, p.best, p.best_at_time) for p in curve_a.points] == [
        (0, 30.0, 0.8, 0.8, 0.5),  # by its end (130 s) trial 1 had ended with 0.5
        (1, 10.0, 0.5, 0.5, 0.5),
        (3, 20.0, 0.9, 0.5, 0.5),
    ]
    assert [(p.best, p.best_at_time) for p in curve_b.points] == [(0.2, 0.2), (0.4, 0.4)]  # max mode


def test_a_search_without_started_trials_counts_from_its_creation():
    pending = [trial(0, None, state="PENDING", start=None)]
    assert search_start(_experiment("c", "min", created=7.0), pending) == 7.0
    (curve,) = compare_searches([(_experiment("c", "min"), [])])
    assert curve.points == ()
