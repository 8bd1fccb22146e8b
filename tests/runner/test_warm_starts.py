"""Warm starts on a real LocalCluster: a search learns another's trials, an extended one does not run
its enqueued configurations again, and every mistake is refused before anything starts (enqueued
configurations running first: test_driver_searches.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hpnb
from hpnb.core.errors import SpecError
from tests.runner import objectives
from tests.waiting import patience

SPACE = {"x": {"min": 0.0, "max": 1.0}, "y": {"type": "int", "min": 0, "max": 2}}


@pytest.mark.slow
def test_extending_a_finished_search_does_not_run_its_enqueued_configurations_again(store, dask_client):
    spec = {"metric": "loss", "strategy": "random", "seed": 0, "parameters": SPACE, "trials": 3,
            "enqueue": [{"x": 0.5, "y": 1}]}
    search = hpnb.search(objectives.quadratic, spec, name="extended", store=store,
                         client=dask_client).wait(patience(60))
    search.extend(3)
    search.wait(patience(60))
    params = [t.params for t in store.trials(search.experiment_id)]
    assert len(params) == 6 and params.count({"x": 0.5, "y": 1}) == 1


def _distance_objective(x: float, y: int) -> dict[str, float]:
    return {"loss": math.hypot(x - 0.8, y - 1)}


@pytest.mark.slow
def test_a_warm_started_search_learns_the_other_and_says_what_it_dropped(store, dask_client, capsys):
    old_space = {**SPACE, "momentum": {"min": 0.5, "max": 0.99}}
    old = {"metric": "loss", "strategy": "random", "seed": 1, "parameters": old_space, "trials": 30}
    hpnb.search(lambda x, y, momentum: _distance_objective(x, y), old, name="old", store=store,
                client=dask_client).wait(patience(120))
    new = {"metric": "loss", "strategy": "tpe", "seed": 0, "parameters": SPACE, "trials": 8,
           "warm_start": {"from": "old"}}
    cold = hpnb.search(_distance_objective, {**new, "warm_start": None}, name="cold", store=store,
                       client=dask_client).wait(patience(120))
    warm = hpnb.search(_distance_objective, new, name="warm", store=store,
                       client=dask_client).wait(patience(120))
    printed = capsys.readouterr().out
    assert "warm start from 'old': learns 30 completed trials; dropped 30 values of momentum" in printed
    losses = {s.name: [t.value for t in store.trials(s.experiment_id)] for s in (cold, warm)}
    assert np.median(losses["warm"]) < np.median(losses["cold"]), losses
    assert any(e["kind"] == "warm_start" for e in store.events(warm.experiment_id))


@pytest.mark.parametrize(("spec", "path"), [
    ({"warm_start": {"from": "nowhere"}}, "warm_start.from"),
    ({"warm_start": {"from": "self"}}, "warm_start.from"),
    ({"enqueue": [{"x": 2.0}]}, "enqueue[0].x"),
])
def test_a_bad_warm_start_is_refused_before_anything_is_stored(store, spec, path):
    full = {"metric": "loss", "strategy": "tpe", "parameters": SPACE, "trials": 2, **spec}
    with pytest.raises(SpecError) as info:
        hpnb.search(objectives.quadratic, full, name="self", store=store)  # refused before a cluster
    assert info.value.path == path
    assert store.find_experiment("self") is None


@pytest.mark.slow
def test_an_unknown_warm_start_in_yaml_names_its_line(store, dask_client):
    text = "metric: loss\nstrategy: tpe\nwarm_start:\n  from: nowher\nparameters:\n  x: {min: 0, max: 1}\n"
    hpnb.search(objectives.quadratic, {"metric": "loss", "parameters": SPACE, "trials": 1}, name="nowhere",
                store=store, client=dask_client).wait(patience(60))
    with pytest.raises(SpecError) as info:
        hpnb.search(objectives.quadratic, text, name="new", store=store, client=dask_client)
    assert info.value.line == 4 and "did you mean 'nowhere'" in str(info.value)
