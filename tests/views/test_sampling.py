"""What the dashboard and the Lab draw of a large search: bounded, and exact where it matters."""

from __future__ import annotations

from hpnb.core.summary import ExperimentState, ranked
from hpnb.views import columns, ranking, sampling
from tests.views.trials import TRIALS, many, trial


def test_parallel_coordinates_send_the_best_thousand_and_an_even_sample():
    trials = many()
    sample = sampling.parcoords_sample(trials, "min")
    best = [t.trial_id for t in ranked(trials, "min")[:1000]]
    assert [t.trial_id for t in sample.trials[:1000]] == best
    assert (sample.best, sample.sampled, sample.scored) == (1000, sampling.PARCOORDS_SAMPLE, TRIALS)
    others = [t.trial_id for t in sample.trials[1000:]]
    assert len(set(others)) == sampling.PARCOORDS_SAMPLE and not set(others) & set(best)
    spacing = (TRIALS - 1000) / sampling.PARCOORDS_SAMPLE  # about that many trials apart, the whole way
    assert others[0] < spacing * 2 and others[-1] > TRIALS - spacing * 3
    assert others == sorted(others)  # spread over the search, stable between redraws
    worst = ranked(trials, "min")[-1].trial_id
    chosen = sampling.parcoords_sample(trials, "min", selected=worst)
    assert worst in [t.trial_id for t in chosen.trials]


def test_curves_are_drawn_for_few_trials_among_them_the_selected_one():
    trials = many(200)
    chosen = sampling.curve_trials(trials, "min", ExperimentState.COMPLETED, selected=150)
    assert len(chosen) == sampling.CURVE_TRIALS and 150 in [t.trial_id for t in chosen]


def test_the_leaderboard_keeps_missing_values_last_in_both_directions():
    trials = [trial(0, 0.5, lr=0.1), trial(1, None, "FAILED", lr=0.01), trial(2, 0.2),
              trial(3, 0.9, lr=0.001)]
    for descending in (False, True):
        order = [t.trial_id for t in columns.sorted_trials(trials, "min", "param:lr", descending, 100.0)]
        assert order[-1] == 2
        assert order[:3] == ([3, 1, 0] if not descending else [0, 1, 3])
        by_score = [t.trial_id for t in columns.sorted_trials(trials, "min", "score", descending, 100.0)]
        assert by_score == ([2, 0, 3, 1] if not descending else [3, 0, 2, 1])
    assert ranking.ranks(trials, "min") == {2: 1, 0: 2, 3: 3}
