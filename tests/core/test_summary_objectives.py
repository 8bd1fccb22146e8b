"""The summary of a search with several objectives: its front, the trials' order, no single best."""

from __future__ import annotations

from typing import Any

import pytest

from hpnb.core import frames
from hpnb.core.objectives import Objective
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.summary import (
    best_trial,
    pareto_front,
    ranked,
    record_objectives,
    summarize,
    trial_scores,
)

OBJECTIVES = (Objective("loss", "min"), Objective("accuracy", "max"))
SPEC = {"metrics": [o.to_dict() for o in OBJECTIVES], "parameters": {"x": {"min": 0, "max": 1}}}


def record(spec: dict[str, Any] = SPEC) -> ExperimentRecord:
    return ExperimentRecord(1, "two", spec, None, "COMPLETED", 6, 2, "loss", "min", "nsga2",
                            0.0, 10.0, None, False, None, None, None)


def trial(trial_id: int, state: str = "COMPLETED", **metrics: float) -> TrialRecord:
    return TrialRecord(1, trial_id, {"x": trial_id / 10}, state, 0.0, 1.0, None, None, 0, None, 3,
                       metrics.get("loss"), metrics.get("loss"), metrics, None, None)


# loss (min) and accuracy (max): 0, 1, 2 are on the front; 3 is beaten by 1; 4 failed; 5 lacks accuracy
TRIALS = [trial(0, loss=0.1, accuracy=0.5), trial(1, loss=0.3, accuracy=0.8),
          trial(2, loss=0.6, accuracy=0.9), trial(3, loss=0.4, accuracy=0.7),
          trial(4, "FAILED", loss=0.0, accuracy=1.0), trial(5, loss=0.05)]


def test_the_objectives_are_read_from_the_stored_spec() -> None:
    assert record_objectives(record()) == OBJECTIVES
    assert record_objectives(record({"metric": "loss"})) == (Objective("loss", "min"),)


def test_a_trial_scores_on_every_objective_or_not_at_all() -> None:
    assert trial_scores(TRIALS[1], OBJECTIVES) == (0.3, 0.8)
    assert trial_scores(TRIALS[4], OBJECTIVES) is None  # failed
    assert trial_scores(TRIALS[5], OBJECTIVES) is None  # no accuracy


def test_the_front_holds_the_trials_nothing_beats_on_both() -> None:
    assert [t.trial_id for t in pareto_front(TRIALS, OBJECTIVES)] == [0, 1, 2]


def test_trials_rank_by_front_then_crowding_and_unscored_last() -> None:
    order = [t.trial_id for t in ranked(TRIALS, OBJECTIVES)]
    assert order[:3] in ([0, 2, 1], [2, 0, 1])  # the front's ends first: they are the least crowded
    assert order[3] == 3
    assert set(order[4:]) == {4, 5}


def test_there_is_no_single_best_trial_but_a_front_in_the_summary() -> None:
    assert best_trial(TRIALS, OBJECTIVES) is None
    summary = summarize(record(), TRIALS, now=20.0)
    assert summary.best_trial is None and summary.is_multi_objective
    assert summary.front_size == 3
    assert summary.front[0] == {"trial_id": 0, "values": {"loss": 0.1, "accuracy": 0.5}, "params": {"x": 0.0}}
    data = summary.to_json()
    assert data["best"] is None
    assert data["objectives"] == [{"name": "loss", "mode": "min"}, {"name": "accuracy", "mode": "max"}]
    assert [t["trial_id"] for t in data["front"]] == [0, 1, 2]


def test_a_single_objective_summary_is_unchanged() -> None:
    single = record({"metric": "loss"})
    summary = summarize(single, TRIALS, now=20.0)
    assert summary.best_trial == 5 and summary.front == () and not summary.is_multi_objective


def test_frames_show_each_objective_and_the_pareto_rank() -> None:
    results = frames.results_frame(record(), TRIALS, now=20.0)
    assert list(results["accuracy"])[:3] == [0.5, 0.8, 0.9]
    assert list(results["pareto_rank"].astype("float").fillna(-1)) == [0, 0, 0, 1, -1, -1]
    front = frames.pareto_frame(record(), TRIALS)
    assert list(front["trial_id"]) == [0, 1, 2]
    board = frames.leaderboard(record(), TRIALS)
    assert list(board["trial_id"])[3] == 3


def test_a_stored_search_with_several_objectives_lists_its_front_size(tmp_path: Any) -> None:
    with Store(tmp_path / "hpnb.sqlite") as store:
        exp = store.create_experiment("two", SPEC, metric="loss", mode="min", strategy="nsga2", budget=6,
                                      parallel=2)
        for t in TRIALS:
            store.add_trial(exp.id, t.trial_id, t.params)
            store.update_trial(exp.id, t.trial_id, state=t.state, value=t.value, metrics=t.metrics)
        summaries = [summarize(r, store.trials(r.id), now=0.0) for r in store.experiments()]
    table = frames.experiments_frame(summaries)
    assert table.loc[0, "front"] == 3 and table["best"].isna().all()


@pytest.mark.parametrize("mode", ["min", "max"])
def test_one_objective_given_as_objectives_ranks_as_its_mode(mode: str) -> None:
    scored = [trial(i, loss=v) for i, v in enumerate([0.3, 0.1, 0.2])]
    by_mode = [t.trial_id for t in ranked(scored, mode)]
    assert [t.trial_id for t in ranked(scored, (Objective("loss", mode),))] == by_mode
