"""A search over a conditional space on a real local Dask cluster, and its resume."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import cloudpickle
import pytest

import hpnb
from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.core.strategies.tpe import TPEStrategy
from hpnb.core.summary import STALE_AFTER
from tests.runner import conditional_objective, processes
from tests.waiting import patience

cloudpickle.register_pickle_by_value(conditional_objective)

SPEC = """\
metric: loss
strategy: {name: tpe, n_startup_trials: 4}
seed: 0
parameters:
  optimizer: [sgd, adam, rmsprop]
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
  momentum:
    min: 0.5
    max: 0.99
    when: {optimizer: sgd}
  nesterov: {values: [true, false], when: {optimizer: sgd}}
  beta: {min: 0.9, max: 0.999, when: {optimizer: [adam, rmsprop]}}
"""


def _check_trials(store, search) -> list:  # type: ignore[no-untyped-def]
    space = parse_spec(SPEC).space
    trials = store.trials(search.experiment_id)
    assert {t.state for t in trials} == {"COMPLETED"}, [(t.trial_id, t.error) for t in trials]
    for trial in trials:
        assert space.contains(trial.params), trial.params
        expected = conditional_objective.EXPECTED[trial.params["optimizer"]]
        assert set(trial.params) == {"optimizer", "lr"} | expected
    return trials


@pytest.mark.slow
def test_the_objective_gets_the_active_parameters_only_and_views_show_the_rest_blank(store, dask_client):
    search = hpnb.search(conditional_objective.train, SPEC, name="conditional", store=store,
                         client=dask_client, trials=12, parallel=2).wait(patience(120))
    assert search.state == "COMPLETED", search.message
    trials = _check_trials(store, search)
    assert {t.params["optimizer"] for t in trials} >= {"sgd"}
    results = search.results
    for _, row in results.iterrows():
        sgd = row["optimizer"] == "sgd"
        assert math.isnan(row["beta"]) == sgd and math.isnan(row["momentum"]) != sgd, dict(row)


@pytest.mark.slow
def test_a_conditional_search_resumes_with_tpe_rebuilt_from_trials_missing_parameters(
        store, dask_client, monkeypatch: pytest.MonkeyPatch):
    calls, lock = {"n": 0}, threading.Lock()
    original = TPEStrategy.suggest

    def fails_on_the_seventh(self, trial_id):  # type: ignore[no-untyped-def]
        with lock:
            calls["n"] += 1
            if calls["n"] == 7:
                raise RuntimeError("the driver went away")
        return original(self, trial_id)

    monkeypatch.setattr(TPEStrategy, "suggest", fails_on_the_seventh)
    search = hpnb.search(conditional_objective.train, SPEC, name="conditional-resume", store=store,
                         client=dask_client, trials=14, parallel=2).wait(patience(120))
    assert search.state == "FAILED" and "the driver went away" in search.message
    before = len(store.trials(search.experiment_id))
    assert 0 < before < 14
    monkeypatch.setattr(TPEStrategy, "suggest", original)
    resumed = hpnb.resume("conditional-resume", conditional_objective.train, store=store,
                          client=dask_client).wait(patience(120))
    assert resumed.state == "COMPLETED", resumed.message
    trials = _check_trials(store, resumed)
    assert [t.trial_id for t in trials] == list(range(14))


DRIVER_SCRIPT = """
import sys, functools, cloudpickle
sys.path.insert(0, {root!r})
import hpnb
from tests.runner import conditional_objective
cloudpickle.register_pickle_by_value(conditional_objective)
if __name__ == "__main__":
    hpnb.search(functools.partial(conditional_objective.train, pause=0.3), {spec!r}, name="killed-cond",
                store={store!r}, trials=10, parallel=2, resources={{"workers": 2}}).wait()
"""


def _mid_run(store_path: Path) -> bool:
    """Three trials completed and one running: the moment to kill the driver (between a trial's
    end and the next one's start, no trial runs)."""
    if not store_path.exists():
        return False
    with Store(store_path, readonly=True) as store:
        record = store.find_experiment("killed-cond")
        states = [] if record is None else [t.state for t in store.trials(record.id)]
    return states.count("COMPLETED") >= 3 and "RUNNING" in states


@pytest.mark.slow
def test_a_killed_conditional_search_resumes_its_running_trials_with_their_stored_parameters(tmp_path):
    store_path, script = tmp_path / "hpnb.sqlite", tmp_path / "driver.py"
    script.write_text(DRIVER_SCRIPT.format(root=str(processes.ROOT), spec=SPEC, store=str(store_path)))
    driver = subprocess.Popen([sys.executable, str(script)], start_new_session=True)
    try:
        processes.wait_for(lambda: _mid_run(store_path), timeout=90)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)  # the driver and its local cluster, like a dead kernel
        driver.wait(patience(10))
    processes.wait_for(lambda: hpnb.load("killed-cond", store=store_path).state == "INTERRUPTED",
                       timeout=3 * STALE_AFTER)
    with Store(store_path, readonly=True) as store:
        record = store.find_experiment("killed-cond")
        assert record is not None
        before = {t.trial_id: dict(t.params) for t in store.trials(record.id)}
        unfinished = [t.trial_id for t in store.trials(record.id) if t.state != "COMPLETED"]
    assert unfinished, "the driver was killed while trials ran: they must run again"
    resumed = hpnb.resume("killed-cond", partial(conditional_objective.train, pause=0.01),
                          store=store_path).wait(patience(120))
    assert resumed.state == "COMPLETED", resumed.message
    with Store(store_path, readonly=True) as store:
        trials = _check_trials(store, resumed)
    assert [t.trial_id for t in trials] == list(range(10))
    assert all(trials[tid].params == params for tid, params in before.items())  # rerun as stored
