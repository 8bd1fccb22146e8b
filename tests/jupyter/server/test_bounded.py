"""What the Lab view is sent of a large search: bounded, and exact where it matters."""

from __future__ import annotations

from hpnb.core.analysis.compare import search_curve
from hpnb.core.analysis.history import optimization_history
from hpnb.core.store import ExperimentRecord, ResultRow
from hpnb.jupyter.server import bounded
from tests.views.trials import TRIALS, many


def test_the_thinned_history_keeps_every_new_best_and_the_selected_trial():
    points = optimization_history(many(), "min")
    kept = bounded.thinned_history(points, 1000, selected=4321)
    assert len(kept) <= 1000 + sum(p.is_best for p in points) + 1
    assert [p for p in kept if p.is_best] == [p for p in points if p.is_best]
    assert 4321 in [p.trial_id for p in kept]
    assert [p.trial_id for p in kept] == sorted(p.trial_id for p in kept)


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


def test_a_curve_is_thinned_but_ends_at_the_latest_report():
    rows = [ResultRow(7, seq, seq - 1, float(seq), 1.0 / seq) for seq in range(1, 10_001)]
    xs, ys = bounded.thinned_curve(rows, 200)
    assert len(xs) <= 401 and (xs[-1], ys[-1]) == (9999.0, 1.0 / 10_000)
    assert xs == sorted(xs)
