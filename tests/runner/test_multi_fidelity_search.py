"""bohb and dehb on a real Dask cluster: the rule stops and promotes trials, and once results are in
the strategy's model proposes configurations better than random ones."""

from __future__ import annotations

from functools import partial
from statistics import median

import pytest

import hpnb
from tests.runner import objectives
from tests.waiting import patience

RATES = {"rate": {"min": 0.0, "max": 1.0}}


def _search(store, dask_client, name: str, strategy: dict, early_stopping: dict) -> hpnb.Search:
    # a higher rate gives a lower loss from the first step on: low budgets tell the good ones apart
    return hpnb.search(partial(objectives.learning_curve, steps=9, pause=0.005), store=store,
                       client=dask_client, name=name, metric="loss", trials=36, parallel=2, seed=3,
                       parameters=RATES, strategy=strategy, early_stopping=early_stopping).wait(patience(240))


def _check(store, search: hpnb.Search, name: str, rungs: set[int]) -> None:
    assert search.state == "COMPLETED", search.message
    trials = sorted(store.trials(search.experiment_id), key=lambda t: t.trial_id)
    assert len(trials) == 36
    stopped = [t for t in trials if t.state == "STOPPED"]
    completed = [t for t in trials if t.state == "COMPLETED"]
    assert stopped and completed, "the rule stopped no trial, or let none run to max_t"
    assert {t.last_step for t in stopped} <= rungs  # stopped at a rung, where it was judged
    assert all(t.last_step == 9 for t in completed)
    events = [e for e in store.events(search.experiment_id) if e["kind"] == "strategy_model"]
    assert len(events) == 1 and events[0]["data"]["strategy"] == name
    first = events[0]["data"]["trial"]
    assert 3 <= first < 20
    early = [t.params["rate"] for t in trials if t.trial_id < first]
    later = [t.params["rate"] for t in trials if t.trial_id > first]
    # random rates have a median of 0.5; the model's lie near the best rate, 1
    assert median(later) > 0.7 and median(later) > median(early), (early, later)


@pytest.mark.slow
def test_bohb_with_asha_on_a_cluster(store, dask_client):
    search = _search(store, dask_client, "bohb-asha", {"name": "bohb"},
                     {"rule": "asha", "grace": 1, "reduction": 3, "max_t": 9})
    _check(store, search, "bohb", {1, 3})


@pytest.mark.slow
def test_dehb_with_hyperband_on_a_cluster(store, dask_client):
    search = _search(store, dask_client, "dehb-hyperband", {"name": "dehb", "population": 5},
                     {"rule": "hyperband", "grace": 1, "reduction": 3, "max_t": 9})
    _check(store, search, "dehb", {1, 3})
