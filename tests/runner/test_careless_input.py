"""Careless names and sizes through the Python API, a checkpoints folder removed or replaced while a
search runs, and a driver that dies: nothing already measured is lost, no trial is left RUNNING."""

from __future__ import annotations

import shutil
import threading
from functools import partial
from pathlib import Path

import pytest

import hpnb
from hpnb.core.errors import HpnbError
from hpnb.core.strategies.random import RandomStrategy
from tests.runner import objectives
from tests.runner.processes import wait_for
from tests.waiting import patience

SPACE = {"x": {"min": 0.0, "max": 1.0}}


@pytest.mark.parametrize("name", ["..", ".", "-rf", "", "a/b", "x" * 129])
def test_the_api_refuses_the_names_the_spec_refuses(store, name):
    with pytest.raises(HpnbError, match=r"^name: "):
        hpnb.search(objectives.with_config, name=name, store=store, metric="loss", parameters=SPACE)
    assert store.experiments() == []


@pytest.mark.slow
def test_a_name_left_out_is_the_objectives_name_or_search(store, dask_client):
    named = hpnb.search(objectives.with_config, store=store, client=dask_client, metric="loss", trials=1,
                        parameters=SPACE).wait(patience(60))
    lambda_named = hpnb.search(lambda x: x, store=store, client=dask_client, metric="loss", trials=1,
                               parameters=SPACE).wait(patience(60))
    assert (named.name, lambda_named.name) == ("with_config", "search")


@pytest.mark.parametrize("trials", [10**30, 10**12])
def test_an_absurd_budget_is_refused_before_anything_starts(store, trials):
    with pytest.raises(HpnbError, match="trials: is more than the limit"):
        hpnb.search(objectives.with_config, name="huge", store=store, metric="loss", trials=trials,
                    parameters=SPACE)
    assert store.find_experiment("huge") is None


def _checkpointing_search(store, dask_client, name: str):
    objective = partial(objectives.crash_once, marker_dir="/nonexistent", steps=300, crash_at=10**6)
    return hpnb.search(objective, name=name, store=store, client=dask_client,
                       metric="loss", strategy={"name": "fixed", "configs": [{"x": 0.0}, {"x": 1.0}]},
                       parameters={"x": [0.0, 1.0]})


def _wait_for_checkpoint_folder(store, search) -> None:
    folder = store.path.parent / "checkpoints"
    wait_for(lambda: any(folder.glob("*/trial-*/ckpt-*")))


def _remove(folder: Path) -> None:
    """Remove a folder the driver keeps writing to (moved away first: rmtree alone races it)."""
    gone = folder.with_name("removed")
    folder.rename(gone)
    shutil.rmtree(gone)


@pytest.mark.slow
def test_the_checkpoints_folder_removed_mid_search_is_recreated(store, dask_client):
    search = _checkpointing_search(store, dask_client, "folder-removed")
    _wait_for_checkpoint_folder(store, search)
    _remove(store.path.parent / "checkpoints")
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    trials = store.trials(search.experiment_id)
    assert [t.state for t in trials] == ["COMPLETED", "COMPLETED"]
    assert all(t.checkpoint for t in trials)
    assert [r.step for r in store.results(search.experiment_id, trial_id=0)] == list(range(300))


@pytest.mark.slow
def test_a_file_where_the_checkpoints_folder_was_is_recorded_per_trial(store, dask_client):
    search = _checkpointing_search(store, dask_client, "folder-is-a-file")
    _wait_for_checkpoint_folder(store, search)
    folder = store.path.parent / "checkpoints"
    blocker = store.path.parent / "blocker"
    for _ in range(100):  # the driver may recreate the folder in between: try again
        _remove(folder)
        blocker.write_text("not a folder")
        try:
            blocker.rename(folder)
            break
        except OSError:
            continue
    assert folder.is_file()
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    assert [t.state for t in store.trials(search.experiment_id)] == ["COMPLETED", "COMPLETED"]
    failed = [e for e in store.events(search.experiment_id) if e["kind"] == "checkpoint_failed"]
    assert failed and "Not a directory" in failed[0]["data"]["error"]
    assert {e["data"]["trial"] for e in failed} <= {0, 1}


@pytest.mark.slow
def test_a_driver_that_fails_leaves_no_trial_running_and_the_search_resumes(store, dask_client, monkeypatch):
    calls = {"n": 0}
    original = RandomStrategy.suggest
    lock = threading.Lock()

    def fails_on_the_third(self, trial_id):
        with lock:
            calls["n"] += 1
            if calls["n"] == 3:
                raise RuntimeError("a bug in a strategy")
        return original(self, trial_id)

    monkeypatch.setattr(RandomStrategy, "suggest", fails_on_the_third)
    objective = partial(objectives.steady, steps=20, pause=0.05)
    search = hpnb.search(objective, name="driver-fails", store=store, client=dask_client, metric="loss",
                         strategy="random", trials=4, parallel=2, parameters=SPACE)
    search.wait(patience(60))
    assert search.state == "FAILED"
    assert "the driver failed: RuntimeError: a bug in a strategy" in search.message
    assert "RUNNING" not in [t.state for t in store.trials(search.experiment_id)]

    monkeypatch.setattr(RandomStrategy, "suggest", original)
    resumed = hpnb.resume("driver-fails", objective, store=store, client=dask_client).wait(patience(120))
    assert resumed.state == "COMPLETED", resumed.message
    assert [t.state for t in store.trials(search.experiment_id)] == ["COMPLETED"] * 4
