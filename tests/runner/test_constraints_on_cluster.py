"""Searches with constraints on a real LocalCluster, started as a user does (``hpnb.search``)."""

from __future__ import annotations

import cloudpickle
import pytest

import hpnb
from tests.runner import two_objectives
from tests.waiting import patience

cloudpickle.register_pickle_by_value(two_objectives)

PARAMETERS = {"width": {"min": 0.0, "max": 1.0}, "depth": {"type": "int", "min": 1, "max": 3}}


@pytest.mark.slow
def test_the_best_trial_satisfies_the_latency_constraint(store, dask_client):
    """Lower loss needs a wider model, which is slower: the best feasible trial is not the best."""
    search = hpnb.search(two_objectives.train, name="fast", store=store, client=dask_client,
                         metric="val_loss", parameters=PARAMETERS, strategy="tpe", trials=16, parallel=2,
                         seed=0, constraints={"latency_ms": {"max": 8.0}}).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    results = search.results
    latency = {t.trial_id: t.metrics["latency_ms"] for t in store.trials(search.experiment_id)}
    assert results["feasible"].tolist() == [latency[i] <= 8.0 for i in results["trial_id"]]
    assert results["feasible"].any() and not results["feasible"].all()
    best = search.best
    assert best is not None and best["metrics"]["latency_ms"] <= 8.0
    feasible = results[results["feasible"]]
    assert best["value"] == feasible["value"].min()
    assert search.summary.infeasible == int((~results["feasible"]).sum())


@pytest.mark.slow
def test_the_pareto_front_of_nsga2_holds_feasible_trials_only(store, dask_client):
    spec = {"metrics": {"val_loss": "min", "latency_ms": "min"}, "parameters": PARAMETERS, "seed": 0,
            "constraints": {"val_loss": {"max": 0.6}}}
    search = hpnb.search(two_objectives.train, spec, name="front", store=store, client=dask_client,
                         strategy={"name": "nsga2", "population_size": 6}, trials=12, parallel=2,
                         ).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    front = search.pareto
    assert len(front) and (front["val_loss"] <= 0.6).all() and front["feasible"].all()
