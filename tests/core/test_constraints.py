"""The feasibility rule, and how the summary, the leaderboards and the exports apply it."""

from __future__ import annotations

import math

from hpnb.core.constraints import Constraint, feasibility, is_feasible, learnt_violations, violations
from hpnb.core.frames import leaderboard, pareto_frame, results_frame
from hpnb.core.objectives import Objective
from hpnb.core.store import ExperimentRecord, TrialRecord
from hpnb.core.summary import best_trial, pareto_front, ranked, summarize
from hpnb.views.ranking import rank_trials

SIZE = Constraint("size", max=10.0)
LATENCY = Constraint("latency", min=1.0, max=20.0)


def trial(i: int, loss: float | None, state: str = "COMPLETED", **metrics: float) -> TrialRecord:
    reported = {} if loss is None else {"loss": loss}
    return TrialRecord(1, i, {"x": i}, state, 0.0, 1.0, None, None, 0, None, None, loss, loss,
                       {**reported, **metrics}, None, None)


def record(spec: dict) -> ExperimentRecord:
    return ExperimentRecord(1, "s", spec, None, "COMPLETED", 10, None, "loss", "min", "tpe",
                            0.0, 5.0, None, False, None, None, None)


def test_a_trial_is_feasible_when_its_last_values_satisfy_every_bound():
    assert feasibility({"size": 10.0, "latency": 1.0}, (SIZE, LATENCY)).feasible  # bounds included
    verdict = feasibility({"size": 12.0, "latency": 0.5}, (SIZE, LATENCY))
    assert not verdict.feasible
    assert verdict.reasons == ("size = 12, not size <= 10", "latency = 0.5, not 1 <= latency <= 20")
    assert violations({"size": 12.0, "latency": 0.5}, (SIZE, LATENCY)) == (2.0, 0.5)


def test_a_metric_never_reported_fails_its_constraint_with_a_reason():
    for metrics in ({}, {"size": math.nan}, {"size": "big"}):
        verdict = feasibility(metrics, (SIZE,))
        assert verdict == feasibility({}, (SIZE,)) and verdict.reasons == ("never reported size",)
    assert violations({}, (SIZE,)) == (math.inf,)
    assert learnt_violations({}, (SIZE,))[0] > 1e20  # finite, for models
    assert is_feasible(trial(0, 1.0), ()) and not is_feasible(trial(0, 1.0), (SIZE,))


def test_the_best_trial_is_the_best_feasible_one():
    trials = [trial(0, 0.1, size=50.0), trial(1, 0.3, size=5.0), trial(2, 0.2), trial(3, 0.5, size=1.0)]
    assert best_trial(trials, "min").trial_id == 0  # without constraints
    assert best_trial(trials, "min", (SIZE,)).trial_id == 1
    assert [t.trial_id for t in ranked(trials, "min", (SIZE,))] == [1, 3, 0, 2]  # infeasible after
    assert best_trial([trial(0, 0.1, size=50.0)], "min", (SIZE,)) is None


def test_the_front_holds_feasible_trials_only():
    objectives = (Objective("loss"), Objective("latency"))
    trials = [trial(0, 0.1, latency=30.0), trial(1, 0.5, latency=5.0), trial(2, 0.6, latency=2.0),
              trial(3, 0.7, latency=10.0)]
    assert {t.trial_id for t in pareto_front(trials, objectives)} == {0, 1, 2}
    assert [t.trial_id for t in pareto_front(trials, objectives, (LATENCY,))] == [1, 2]
    ranking = rank_trials(trials, objectives, (LATENCY,))
    assert ranking.pareto == {1: 0, 2: 0, 3: 1} and ranking.order[-1].trial_id == 0
    assert ranking.row(trials[0])["feasible"] is False
    assert ranking.row(trials[0])["infeasible_because"] == ["latency = 30, not 1 <= latency <= 20"]


def test_the_summary_and_the_exports_show_which_trials_are_infeasible():
    spec = {"metric": "loss", "constraints": {"size": {"max": 10.0}}}
    trials = [trial(0, 0.1, size=50.0), trial(1, 0.3, size=5.0), trial(2, None, state="FAILED")]
    summary = summarize(record(spec), trials, now=10.0)
    assert (summary.best_trial, summary.infeasible) == (1, 1)
    assert summary.to_json()["constraints"] == [{"metric": "size", "max": 10.0}]
    frame = results_frame(record(spec), trials)
    assert frame["feasible"].tolist() == [False, True, False]
    assert leaderboard(record(spec), trials)["trial_id"].tolist() == [1, 0, 2]
    assert pareto_frame(record(spec), trials)["trial_id"].tolist() == [1]
    assert "feasible" not in results_frame(record({"metric": "loss"}), trials)
