"""Real training code on a real Dask cluster: numpy metrics, exceptions of every kind, hangs."""

from __future__ import annotations

from functools import partial

import cloudpickle
import pytest

import hpnb
from tests.runner import training_code
from tests.waiting import patience, wait_until

cloudpickle.register_pickle_by_value(training_code)


def _fixed(*xs: float) -> dict[str, object]:
    return {"name": "fixed", "configs": [{"x": x} for x in xs]}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(training_code.NUMBER_KINDS))
def test_every_kind_of_number_training_code_produces_is_a_metric(store, dask_client, kind):
    search = hpnb.search(partial(training_code.numpy_training, kind=kind), name=f"numbers-{kind}",
                         store=store, client=dask_client, metric="loss", strategy=_fixed(0.1, 0.5),
                         parameters={"x": [0.1, 0.5]})
    search.wait(patience(60))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        assert trial.state == "COMPLETED", trial.error
        assert trial.value == pytest.approx((trial.params["x"] - 0.3) ** 2)
        assert type(trial.metrics["accuracy"]) is float
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        assert [r.step for r in rows] == list(range(5))
        assert all(type(r.metrics["epoch"]) is int for r in rows)
        assert all(isinstance(r.value, float) for r in rows)


@pytest.mark.slow
def test_an_objective_returning_a_numpy_scalar_completes(store, dask_client):
    search = hpnb.search(training_code.returns_numpy, name="returns-numpy", store=store, client=dask_client,
                         metric="loss", strategy=_fixed(0.1, 0.2, 0.3), parameters={"x": [0.1, 0.2, 0.3]})
    search.wait(patience(60))
    assert search.state == "COMPLETED", search.message
    assert [t.state for t in store.trials(search.experiment_id)] == ["COMPLETED"] * 3
    # how soon: benchmarks/runner_numpy_metrics.py


@pytest.mark.slow
@pytest.mark.parametrize(("objective", "words"), [
    (training_code.reports_text, ["'optimizer'", "str", "not a number"]),
    (training_code.reports_vector, ["'loss'", "shape (2,)", "not a number"]),
])
def test_a_metric_that_is_not_a_number_fails_its_trial_with_a_clear_message(store, dask_client, objective,
                                                                             words):
    search = hpnb.search(objective, name="not-a-number", store=store, client=dask_client, metric="loss",
                         strategy=_fixed(0.1, 0.2), parameters={"x": [0.1, 0.2]}, max_failures=10)
    search.wait(patience(60))
    trials = store.trials(search.experiment_id)
    assert [t.state for t in trials] == ["FAILED", "FAILED"]
    for trial in trials:
        assert all(word in trial.error for word in words), trial.error


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(training_code.RAISES))
def test_any_exception_from_user_code_fails_the_trial_and_the_worker_lives(store, dask_client, kind):
    workers_before = set(dask_client.scheduler_info(n_workers=-1)["workers"])
    search = hpnb.search(partial(training_code.raises, kind=kind), name=f"raises-{kind}", store=store,
                         client=dask_client, metric="loss", strategy=_fixed(0.1, 0.2, 0.3),
                         parameters={"x": [0.1, 0.2, 0.3]}, retries=2, max_failures=10)
    search.wait(patience(60))
    trials = store.trials(search.experiment_id)
    assert [t.state for t in trials] == ["FAILED"] * 3
    for trial in trials:
        assert f"{kind}: raised by the objective" in trial.error, trial.error
        assert "Traceback" in trial.error
        assert trial.retries == 0  # a failure of the code, not of the worker: no retry
    # the same workers, not restarted ones (the scheduler's list can be empty for a moment on a busy machine)
    wait_until(lambda: set(dask_client.scheduler_info(n_workers=-1)["workers"]) == workers_before, timeout=30,
               message="the workers of before the search")
    assert search.state == "FAILED"
    assert "every trial failed" in search.message and kind in search.message


@pytest.mark.slow
def test_a_hung_trial_times_out_and_the_next_search_starts(store, dask_client):
    search = hpnb.search(training_code.hangs, name="hung", store=store, client=dask_client, metric="loss",
                         strategy=_fixed(0.1, 0.2), parameters={"x": [0.1, 0.2]}, trial_timeout="2s",
                         retries=0, max_failures=10)
    assert search.wait(patience(30)).state == "FAILED", search.message
    trials = store.trials(search.experiment_id)
    assert [t.state for t in trials] == ["FAILED", "FAILED"]
    for trial in trials:
        assert "ran longer than 2s" in trial.error  # ended by its limit, not by its hang
    # the threads that never returned do not hold the cluster: the next search runs (how soon:
    # benchmarks/hung_trials.py)
    follow = hpnb.search(training_code.returns_numpy, name="after-hung", store=store, client=dask_client,
                         metric="loss", strategy=_fixed(0.1, 0.2), parameters={"x": [0.1, 0.2]})
    assert follow.wait(patience(60)).state == "COMPLETED", follow.message


@pytest.mark.slow
def test_a_timed_out_trial_is_retried_before_it_fails(store, dask_client):
    search = hpnb.search(partial(training_code.hangs, report_first=True), name="hung-retry", store=store,
                         client=dask_client, metric="loss", strategy=_fixed(0.1),
                         parameters={"x": [0.1]}, trial_timeout=1.5, retries=1)
    search.wait(patience(60))
    trial = store.trials(search.experiment_id)[0]
    assert trial.state == "FAILED"
    assert trial.retries == 1
    assert "ran longer than 1.5s" in trial.error
    retries = [e for e in store.events(search.experiment_id) if e["kind"] == "retry"]
    assert len(retries) == 1 and "ran longer than" in retries[0]["data"]["reason"]


