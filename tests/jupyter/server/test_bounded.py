"""What the Lab view is sent of a large search: bounded, and exact where it matters."""

from __future__ import annotations

import random

from hpnb.core.analysis.compare import search_curve
from hpnb.core.analysis.history import optimization_history
from hpnb.core.store import ExperimentRecord, ResultRow, TrialRecord
from hpnb.core.summary import ExperimentState, ranked
from hpnb.jupyter.server import bounded

TRIALS = 5000


def trial(trial_id: int, score: float | None, state: str = "COMPLETED", **params: object) -> TrialRecord:
    return TrialRecord(1, trial_id, dict(params), state, 10.0 * trial_id, 10.0 * trial_id + 5, None, None, 0,
                       None, 4, score, score, {}, None, None)  # fmt: skip


def many(count: int = TRIALS) -> list[TrialRecord]:
    rng = random.Random(0)
    return [trial(i, rng.random(), lr=10 ** rng.uniform(-5, -1)) for i in range(count)]


def test_parallel_coordinates_send_the_best_thousand_and_an_even_sample():
    trials = many()
    sample = bounded.parcoords_sample(trials, "min")
    best = [t.trial_id for t in ranked(trials, "min")[:1000]]
    assert [t.trial_id for t in sample.trials[:1000]] == best
    assert (sample.best, sample.sampled, sample.scored) == (1000, bounded.PARCOORDS_SAMPLE, TRIALS)
    others = [t.trial_id for t in sample.trials[1000:]]
    assert len(set(others)) == bounded.PARCOORDS_SAMPLE and not set(others) & set(best)
    spacing = (TRIALS - 1000) / bounded.PARCOORDS_SAMPLE  # about that many trials apart, the whole way
    assert others[0] < spacing * 2 and others[-1] > TRIALS - spacing * 3
    assert others == sorted(others)  # spread over the search, stable between redraws
    worst = ranked(trials, "min")[-1].trial_id
    chosen = bounded.parcoords_sample(trials, "min", selected=worst)
    assert worst in [t.trial_id for t in chosen.trials]


def test_the_thinned_history_keeps_every_new_best_and_the_selected_trial():
    points = optimization_history(many(), "min")
    kept = bounded.thinned_history(points, 1000, selected=4321)
    assert len(kept) <= 1000 + sum(p.is_best for p in points) + 1
    assert [p for p in kept if p.is_best] == [p for p in points if p.is_best]
    assert 4321 in [p.trial_id for p in kept]
    assert [p.trial_id for p in kept] == sorted(p.trial_id for p in kept)


def test_the_leaderboard_keeps_missing_values_last_in_both_directions():
    trials = [trial(0, 0.5, lr=0.1), trial(1, None, "FAILED", lr=0.01), trial(2, 0.2),
              trial(3, 0.9, lr=0.001)]
    for descending in (False, True):
        order = [t.trial_id for t in bounded.sorted_trials(trials, "min", "param:lr", descending, 100.0)]
        assert order[-1] == 2
        assert order[:3] == ([3, 1, 0] if not descending else [0, 1, 3])
        by_score = [t.trial_id for t in bounded.sorted_trials(trials, "min", "score", descending, 100.0)]
        assert by_score == ([2, 0, 3, 1] if not descending else [3, 0, 2, 1])
    assert bounded.ranks(trials, "min") == {2: 1, 0: 2, 3: 3}


def test_curves_are_few_and_thinned_but_end_at_the_latest_report():
    trials = many(200)
    chosen = bounded.curve_trials(trials, "min", ExperimentState.COMPLETED, selected=150)
    assert len(chosen) == bounded.CURVE_TRIALS and 150 in [t.trial_id for t in chosen]
    rows = [ResultRow(7, seq, seq - 1, float(seq), 1.0 / seq) for seq in range(1, 10_001)]
    xs, ys = bounded.thinned_curve(rows, 200)
    assert len(xs) <= 401 and (xs[-1], ys[-1]) == (9999.0, 1.0 / 10_000)
    assert xs == sorted(xs)


def test_a_compared_search_keeps_every_change_of_its_best_lines():
    trials = many()
    record = ExperimentRecord(1, "a", {}, None, "COMPLETED", TRIALS, 1, "loss", "min", "random",
                              0.0, 0.0, None, False, None, None, None)  # fmt: skip
    curve = search_curve(record, trials)
    sent = bounded.compare_json(curve, 1000)
    assert len(sent["trial_ids"]) < 1200
    kept = dict(zip(sent["trial_ids"], sent["best"], strict=True))
    for point in curve.points:
        if point.trial_id in kept:
            assert kept[point.trial_id] == point.best
    changes = {p.trial_id for i, p in enumerate(curve.points) if i == 0 or p.best != curve.points[i - 1].best}
    assert changes <= set(kept)
