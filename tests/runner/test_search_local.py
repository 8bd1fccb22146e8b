"""Searches on a real LocalCluster with worker processes: what only real workers show (their
messages, stop flags reaching their threads, queued tasks taking a freed slot). The driver's logic
on its own (failures, commands, budgets) is in test_driver_paths.py and test_driver_searches.py."""

from __future__ import annotations

from functools import partial

import pytest

import hpnb
from hpnb.core.errors import HpnbError
from hpnb.core.store import NameTaken, Store
from tests.runner import objectives
from tests.runner.processes import wait_for
from tests.waiting import patience

X_SPACE = {"x": {"min": 0.0, "max": 1.0}}


def run(store: Store, objective, dask_client, name: str = "s", **spec):
    spec.setdefault("metric", "loss")
    spec.setdefault("parameters", X_SPACE)
    spec.setdefault("seed", 0)
    return hpnb.search(objective, name=name, store=store, client=dask_client, **spec)


@pytest.mark.slow
def test_search_returns_at_once_and_runs_every_trial(store, dask_client):
    search = run(store, partial(objectives.quadratic, sleep=0.05), dask_client, trials=6, parallel=2)
    assert search.state == "RUNNING" and search.is_live  # it returned while its trials run
    search.wait(patience(60))
    assert search.state == "COMPLETED"
    trials = store.trials(search.experiment_id)
    assert [t.trial_id for t in trials] == list(range(6))
    assert {t.state for t in trials} == {"COMPLETED"}
    for trial in trials:
        assert trial.value == pytest.approx((trial.params["x"] - 0.3) ** 2)
        assert trial.last_step == 2
        assert trial.worker and trial.worker.startswith("tcp://")
        assert trial.end >= trial.start
    rows = store.results(search.experiment_id)
    assert len(rows) == 18
    assert search.best["value"] == min(t.value for t in trials)


@pytest.mark.slow
def test_every_report_is_stored_once_and_in_order_under_load(store, dask_client):
    search = run(store, partial(objectives.flood, count=4000), dask_client, trials=4, parallel=2)
    search.wait(patience(120))
    assert search.state == "COMPLETED"
    rows = store.results(search.experiment_id)
    assert len(rows) == 16_000
    for trial_id in range(4):
        mine = [r for r in rows if r.trial_id == trial_id]
        assert [r.seq for r in mine] == list(range(1, 4001))
        assert [r.step for r in mine] == list(range(4000))


@pytest.mark.slow
def test_objective_may_take_one_config_dict(store, dask_client):
    search = run(store, objectives.with_config, dask_client, trials=3).wait(patience(60))
    assert {t.state for t in store.trials(search.experiment_id)} == {"COMPLETED"}


@pytest.mark.slow
def test_objective_may_return_nothing_after_reporting(store, dask_client):
    search = run(store, objectives.report_only, dask_client, trials=3).wait(patience(60))
    trials = store.trials(search.experiment_id)
    assert {t.state for t in trials} == {"COMPLETED"}
    assert all(t.value == pytest.approx(t.params["x"]) for t in trials)


@pytest.mark.slow
def test_a_name_is_not_reused_silently(store, dask_client):
    run(store, objectives.with_config, dask_client, trials=1).wait(patience(60))
    with pytest.raises(NameTaken):
        run(store, objectives.with_config, dask_client, trials=1)
    again = run(store, objectives.with_config, dask_client, trials=2, overwrite=True).wait(patience(60))
    assert len(store.trials(again.experiment_id)) == 2


@pytest.mark.slow
def test_a_free_slot_is_filled_the_moment_a_trial_ends(store, dask_client):
    space = {"x": [0.0, 1.0, 2.0, 3.0, 4.0], "duration": [0.1, 2.0]}
    configs = [{"x": 0.0, "duration": 2.0}] + [{"x": float(i)} for i in range(1, 5)]
    search = run(store, objectives.durations, dask_client, trials=5, parallel=2,
                 parameters=space, strategy={"name": "fixed", "configs": configs}).wait(patience(60))
    trials = {t.trial_id: t for t in store.trials(search.experiment_id)}
    assert trials[0].params["duration"] == 2.0
    # the short trials ran one after another on the other slot while trial 0 still ran
    assert trials[4].end < trials[0].end


@pytest.mark.slow
def test_stop_trial_stops_that_trial_only(store, dask_client):
    search = run(store, partial(objectives.sleepy, duration=3), dask_client, trials=2, parallel=2)
    wait_for(lambda: len(store.results(search.experiment_id)) > 4)
    search.stop_trial(0)
    search.wait(patience(60))
    states = {t.trial_id: t.state for t in store.trials(search.experiment_id)}
    assert states == {0: "STOPPED", 1: "COMPLETED"}


@pytest.mark.slow
def test_a_trial_that_never_reports_is_cancelled_after_a_stop(store, dask_client):
    search = run(store, partial(objectives.silent_sleep, duration=8), dask_client, trials=1)
    # a stop before the trial starts leaves it PENDING, for a resume: stop it once it runs
    wait_for(lambda: [t.state for t in store.trials(search.experiment_id)] == ["RUNNING"], 120)
    search.stop()
    search.wait(patience(30))
    assert search.state == "STOPPED"
    assert store.trials(search.experiment_id)[0].state == "STOPPED"


@pytest.mark.slow
def test_extend_a_running_search_and_a_finished_one(store, dask_client):
    search = run(store, partial(objectives.sleepy, duration=0.5), dask_client, trials=2, parallel=2)
    search.extend(2)
    search.wait(patience(60))
    assert len(store.trials(search.experiment_id)) == 4
    search.extend(3)
    search.wait(patience(60))
    assert search.state == "COMPLETED"
    trials = store.trials(search.experiment_id)
    assert [t.trial_id for t in trials] == list(range(7))
    assert store.experiment("s").budget == 7


@pytest.mark.slow
def test_load_opens_a_stored_search_read_only(store, dask_client):
    run(store, objectives.with_config, dask_client, trials=2).wait(patience(60))
    loaded = hpnb.load("s", store=store.path)
    assert not loaded.is_live and loaded.state == "COMPLETED"
    assert loaded.best["trial_id"] in (0, 1)
    with pytest.raises(HpnbError, match="not running"):
        loaded.stop_trial(0)


def test_report_outside_a_search_does_nothing():
    assert hpnb.report(step=1, loss=0.5) is None
    assert hpnb.load_checkpoint() is None
