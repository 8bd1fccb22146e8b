"""A noisy search's best is the configuration of best estimated mean over its runs, in the one
summary every front end reads; a search without repeats keeps its best trial."""

from __future__ import annotations

import math

import pytest

from hpnb.core.objectives import Objective
from hpnb.core.repeats import best_runs, estimates, group_runs, is_noisy, noise_variance, spread_text
from hpnb.core.store import ExperimentRecord
from hpnb.core.summary import record_best, search_best, summarize
from tests.core.analysis.records import trial

LOSS = Objective("loss", "min")


def test_runs_are_grouped_by_configuration_whatever_the_order_of_its_parameters() -> None:
    runs = group_runs([(0, {"a": 1, "b": "x"}, 0.2), (1, {"b": "x", "a": 1}, 0.4),
                       (2, {"a": 2, "b": "x"}, 0.1)])
    assert [(r.trial_ids, r.count) for r in runs] == [((0, 1), 2), ((2,), 1)]
    assert runs[0].mean == pytest.approx(0.3) and runs[0].std == pytest.approx(math.sqrt(0.02))
    assert runs[1].std is None


def test_noise_is_known_only_from_repeats_that_differ() -> None:
    assert noise_variance(group_runs([(0, {"a": 1}, 0.2), (1, {"a": 2}, 0.4)])) is None
    assert not is_noisy(group_runs([(0, {"a": 1}, 0.2), (1, {"a": 1}, 0.2)]))
    assert is_noisy(group_runs([(0, {"a": 1}, 0.2), (1, {"a": 1}, 0.3)]))


def test_a_single_run_is_shrunk_more_than_a_repeated_one() -> None:
    """Ten configurations of the same true loss: the noise explains all their spread, so the
    estimates draw together; the configuration with five runs moves least."""
    items = [(i, {"a": i}, 0.5 + 0.1 * (-1) ** i) for i in range(10)]
    items += [(10 + j, {"a": 0}, 0.6 + 0.1 * (-1) ** j) for j in range(4)]
    runs = group_runs(items)
    values = estimates(runs)
    mean = sum(r.mean for r in runs) / len(runs)
    assert all(abs(v - mean) < abs(r.mean - mean) + 1e-12 for v, r in zip(values, runs, strict=True))
    moved = [abs(v - r.mean) for v, r in zip(values, runs, strict=True)]
    assert moved[0] < min(moved[1:])


def test_the_best_is_the_best_mean_not_the_luckiest_run() -> None:
    trials = [trial(0, 0.05, {"x": 1}), trial(1, 0.15, {"x": 2}), trial(2, 0.45, {"x": 1}),
              trial(3, 0.17, {"x": 2}), trial(4, 0.9, {"x": 3})]
    best = search_best(trials, LOSS)
    assert best is not None
    assert (best.trial.trial_id, best.runs, best.value) == (1, 2, pytest.approx(0.16))
    assert best.std == pytest.approx(math.sqrt(0.0002))
    assert best_runs(group_runs([])) is None


def test_a_score_to_maximise_is_averaged_in_its_own_units() -> None:
    trials = [trial(0, 0.95, {"x": 1}), trial(1, 0.80, {"x": 1}), trial(2, 0.90, {"x": 2}),
              trial(3, 0.92, {"x": 2})]
    best = search_best(trials, Objective("acc", "max"))
    assert best is not None and (best.trial.trial_id, best.value) == (2, pytest.approx(0.91))


def test_without_repeats_the_best_trial_stays_and_a_running_trial_is_no_run() -> None:
    trials = [trial(0, 0.3, {"x": 1}), trial(1, 0.2, {"x": 2}), trial(2, 0.1, {"x": 2}, state="RUNNING")]
    best = search_best(trials, LOSS)
    assert best is not None and (best.trial.trial_id, best.runs, best.std) == (2, 1, None)
    noisy = search_best(trials, LOSS, noise=True)
    assert noisy is not None and (noisy.trial.trial_id, noisy.value) == (1, 0.2)


def test_the_summary_and_its_json_carry_the_runs_of_a_noisy_search() -> None:
    record = ExperimentRecord(1, "noisy", {"noise": True}, None, "COMPLETED", 4, 1, "loss", "min", "gp",
                              0.0, 10.0, None, False, None, None, None)
    trials = [trial(0, 0.05, {"x": 1}), trial(1, 0.15, {"x": 2}), trial(2, 0.45, {"x": 1}),
              trial(3, 0.17, {"x": 2})]
    best = record_best(record, trials)
    assert best is not None and best.trial.trial_id == 1
    summary = summarize(record, trials, now=record.updated)
    assert (summary.best_trial, summary.best_runs) == (1, 2)
    assert summary.to_json()["best"]["runs"] == 2
    assert spread_text(summary.best_runs, summary.best_std, "{:.2g}".format) == " ± 0.014 (mean of 2 runs)"
