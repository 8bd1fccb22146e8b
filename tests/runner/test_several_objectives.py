"""Searches with several objectives on a real LocalCluster: the front, the refusals, a resume."""

from __future__ import annotations

from functools import partial

import cloudpickle
import pytest

import hpnb
from hpnb.core.errors import HpnbError
from hpnb.core.non_domination import dominates
from hpnb.core.store import Store
from tests.runner import two_objectives
from tests.waiting import patience

cloudpickle.register_pickle_by_value(two_objectives)

SPEC = {
    "metrics": [{"name": "val_loss", "mode": "min"}, {"name": "latency_ms", "mode": "min"}],
    "parameters": {"width": {"min": 0.0, "max": 1.0}, "depth": {"type": "int", "min": 1, "max": 3}},
    "seed": 0,
}


def _losses(store: Store, search: hpnb.Search) -> dict[int, tuple[float, float]]:
    return {t.trial_id: (t.metrics["val_loss"], t.metrics["latency_ms"])
            for t in store.trials(search.experiment_id) if t.state == "COMPLETED"}


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["nsga2", "tpe", "random"])
def test_a_search_keeps_every_objective_and_finds_its_front(store, dask_client, strategy):
    options = {"name": "nsga2", "population_size": 6} if strategy == "nsga2" else strategy
    search = hpnb.search(two_objectives.train, SPEC, name=f"two-{strategy}", store=store, client=dask_client,
                         strategy=options, trials=18, parallel=2).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    points = _losses(store, search)
    assert len(points) == 18
    front = search.pareto
    on_front = set(front["trial_id"])
    assert on_front and {"val_loss", "latency_ms", "pareto_rank"} <= set(front.columns)
    for trial_id, point in points.items():  # the front is exactly the trials nothing beats
        beaten = any(dominates(other, point) for other in points.values())
        assert (trial_id in on_front) == (not beaten), (trial_id, point)
    assert list(front["val_loss"]) == sorted(front["val_loss"])
    assert search.summary.front_size == len(front) and search.summary.best_trial is None
    with pytest.raises(HpnbError, match="Pareto front"):
        _ = search.best
    assert "step 3: width" in search.logs(0).stdout
    importance = search.importance()  # one column per objective
    assert list(importance.columns) == ["val_loss", "latency_ms"]
    assert set(importance.index) == {"width", "depth"}
    assert importance.sum().round(6).tolist() == [1.0, 1.0]
    assert search.importance(metric="latency_ms").to_dict() == importance["latency_ms"].to_dict()


@pytest.mark.slow
def test_a_tuple_return_maps_to_the_metrics_in_order_and_early_stopping_judges_the_first(
        store, dask_client):
    spec = {**SPEC, "strategy": "tpe", "trials": 8}
    search = hpnb.search(two_objectives.as_tuple, spec, name="tuple", store=store,
                         client=dask_client).wait(patience(60))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        expected = two_objectives.goals(trial.params["width"], trial.params["depth"])
        assert (trial.metrics["val_loss"], trial.metrics["latency_ms"]) == pytest.approx(expected)
    stopping = {**SPEC, "strategy": "random", "trials": 12, "parallel": 2,
                "early_stopping": {"rule": "asha", "grace": 1, "reduction": 2, "max_t": 4}}
    stopped = hpnb.search(partial(two_objectives.train, pause=0.01), stopping, name="asha-two", store=store,
                          client=dask_client).wait(patience(120))
    states = {t.state for t in store.trials(stopped.experiment_id)}
    assert states <= {"COMPLETED", "STOPPED"} and "STOPPED" in states, states


@pytest.mark.slow
def test_a_trial_returning_more_values_than_objectives_fails_and_says_so(store, dask_client):
    # a trial missing an objective's metric: test_driver_searches.py
    search = hpnb.search(two_objectives.three_values, {**SPEC, "trials": 2, "max_failures": 5},
                         name="missing", store=store, client=dask_client).wait(patience(60))
    trials = store.trials(search.experiment_id)
    assert {t.state for t in trials} == {"FAILED"}
    assert all("returned 3 values for 2 objectives" in (t.error or "") for t in trials)


@pytest.mark.slow
def test_a_stopped_nsga2_search_resumes_and_learns_from_every_stored_trial(store, dask_client):
    spec = {**SPEC, "strategy": {"name": "nsga2", "population_size": 4}, "trials": 8, "parallel": 2}
    first = hpnb.search(two_objectives.train, spec, name="resumed", store=store,
                        client=dask_client).wait(patience(60))
    before = _losses(store, first)
    first.extend(8)
    first.wait(patience(120))
    assert first.state == "COMPLETED", first.message
    after = _losses(store, first)
    assert len(after) == 16 and all(after[tid] == point for tid, point in before.items())
    reopened = hpnb.load("resumed", store=store.path)
    assert set(reopened.pareto["trial_id"]) == set(first.pareto["trial_id"])
