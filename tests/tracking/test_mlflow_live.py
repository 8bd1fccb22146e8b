"""A real search tracked live in a real MLflow server: what a reviewer finds there."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

import hpnb
from hpnb.cli import main
from tests.tracking import objectives
from tests.waiting import patience

SPACE = {"lr": [0.1, 0.2, 0.3, 5.0]}


def search_runs(client: MlflowClient, experiment: str) -> tuple[object, dict[int, object]]:
    """The parent run and the trial runs (by trial id) of the one search in ``experiment``."""
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None
    runs = client.search_runs([exp.experiment_id], max_results=1000)
    parents = [r for r in runs if r.data.tags.get("hpnb.role") == "search"]
    assert len(parents) == 1
    trials = {int(r.data.tags["hpnb.trial"]): r for r in runs if r.data.tags.get("hpnb.role") == "trial"}
    assert len(trials) == len(runs) - 1
    return parents[0], trials


@pytest.mark.slow
def test_a_search_lands_in_mlflow_as_a_parent_run_with_nested_trial_runs(store, dask_client, mlflow_uri):
    search = hpnb.search(partial(objectives.curve, fail_above=1.0), name="live-grid", store=store,
                         client=dask_client, metric="loss", strategy="grid", parameters=SPACE, parallel=2,
                         retries=0, tracking={"mlflow": {"uri": mlflow_uri, "experiment": "hpnb-live"}})
    search.wait(patience(120))
    assert search.state == "COMPLETED"
    client = MlflowClient(mlflow_uri)
    parent, trials = search_runs(client, "hpnb-live")
    assert sorted(trials) == [0, 1, 2, 3]
    assert parent.info.status == "FINISHED" and parent.data.tags["hpnb.state"] == "COMPLETED"
    assert parent.data.params["strategy"] == "grid" and parent.data.params["metric"] == "loss"
    best = min(store.trials(search.experiment_id), key=lambda t: t.value if t.value is not None else 9)
    assert parent.data.tags["hpnb.best_trial"] == str(best.trial_id)
    assert parent.data.metrics["best_loss"] == pytest.approx(best.value)
    assert parent.data.tags["best.lr"] == str(best.params["lr"])
    assert parent.data.tags["hpnb.renamed.acc_1"] == "acc@1"  # MLflow refuses '@'
    assert "spec.yaml" in [a.path for a in client.list_artifacts(parent.info.run_id)]
    for trial in store.trials(search.experiment_id):
        run = trials[trial.trial_id]
        assert run.data.tags["mlflow.parentRunId"] == parent.info.run_id
        assert run.data.params["lr"] == str(trial.params["lr"])
        history = client.get_metric_history(run.info.run_id, "loss")
        assert [(m.step, m.value) for m in sorted(history, key=lambda m: m.step)] == [
            (r.step, r.metrics["loss"]) for r in store.results(search.experiment_id, trial_id=trial.trial_id)]
        assert len(client.get_metric_history(run.info.run_id, "acc_1")) == 5
        assert run.data.tags["hpnb.attempts"] == "1"
        files = [a.path for a in client.list_artifacts(run.info.run_id)]
        if trial.params["lr"] > 1.0:
            assert run.info.status == "FAILED" and run.data.tags["hpnb.state"] == "FAILED"
            assert "error.txt" in files
            error = client.download_artifacts(run.info.run_id, "error.txt")
            assert "lr 5.0 is too high" in Path(error).read_text()
        else:
            assert run.info.status == "FINISHED" and run.data.tags["hpnb.state"] == "COMPLETED"
            notes = [a.path for a in client.list_artifacts(run.info.run_id, "artifacts")]
            assert notes == ["artifacts/notes.txt"]


@pytest.mark.slow
def test_a_resumed_search_and_a_re_export_continue_the_same_runs(store, dask_client, mlflow_uri):
    tracking = {"mlflow": {"uri": mlflow_uri, "experiment": "hpnb-resume"}}
    first = hpnb.search(objectives.curve, name="resumed", store=store, client=dask_client, metric="loss",
                        strategy="random", seed=1, trials=2, parameters={"lr": {"min": 0.0, "max": 1.0}},
                        tracking=tracking)
    first.wait(patience(120))
    store.update_experiment(first.experiment_id, budget=4)
    again = hpnb.resume("resumed", objectives.curve, store=store, client=dask_client)
    again.wait(patience(120))
    assert again.state == "COMPLETED"
    client = MlflowClient(mlflow_uri)
    parent, trials = search_runs(client, "hpnb-resume")
    assert sorted(trials) == [0, 1, 2, 3]
    assert parent.data.tags["hpnb.budget"] == "4" and parent.info.status == "FINISHED"
    for run in trials.values():
        assert len(client.get_metric_history(run.info.run_id, "loss")) == 5

    assert main(["export", "resumed", "--store", str(store.path), "--mlflow", mlflow_uri,
                 "--mlflow-experiment", "hpnb-resume"]) == 0
    parent_again, trials_again = search_runs(client, "hpnb-resume")
    assert parent_again.info.run_id == parent.info.run_id
    run_ids = {k: r.info.run_id for k, r in trials.items()}
    assert {k: r.info.run_id for k, r in trials_again.items()} == run_ids
    for run in trials_again.values():
        assert len(client.get_metric_history(run.info.run_id, "loss")) == 5


@pytest.mark.slow
def test_several_objectives_log_the_pareto_front_on_the_parent(store, dask_client, mlflow_uri):
    search = hpnb.search(objectives.two_goals, name="front", store=store, client=dask_client,
                         metrics=[{"name": "loss", "mode": "min"}, {"name": "cost", "mode": "min"}],
                         strategy="grid", parameters={"lr": [0.1, 0.5, 0.9]},
                         tracking={"mlflow": {"uri": mlflow_uri, "experiment": "hpnb-front"}})
    search.wait(patience(120))
    client = MlflowClient(mlflow_uri)
    parent, _ = search_runs(client, "hpnb-front")
    assert sorted(parent.data.tags["hpnb.pareto_front"].split(",")) == ["0", "1", "2"]
    assert parent.data.metrics["pareto_front_size"] == 3
    assert "pareto_front.json" in [a.path for a in client.list_artifacts(parent.info.run_id)]

