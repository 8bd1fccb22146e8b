"""Verdicts and pauses when something dies: a worker while its trial waits for a verdict, a worker
after its trial paused, a driver that stops answering, a driver process that is killed (while its
trials wait for verdicts, or while one of them is paused)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import cloudpickle
import pytest

import hpnb
from hpnb.core.store import Store
from hpnb.core.summary import STALE_AFTER
from hpnb.runner import context as context_module
from hpnb.runner.dask_executor import DaskExecutor
from tests.runner import objectives, processes, resumable
from tests.runner.test_decisions_on_cluster import _running_with_checkpoint, _wait_for, slow_member
from tests.waiting import patience

cloudpickle.register_pickle_by_value(resumable)

ONE = {"x": {"min": 0.0, "max": 1.0}}


def late_answers(monkeypatch: pytest.MonkeyPatch, delay: float, trial: int, attempt: int) -> list[int]:
    """The driver answers ``trial``'s ``attempt`` ``delay`` seconds late (None: never); the steps it
    was asked about are returned as they come."""
    asked: list[int] = []
    answer = DaskExecutor.verdict

    def verdict(self: DaskExecutor, trial_id: int, attempt_no: int, step: int, value: str) -> None:
        if (trial_id, attempt_no) == (trial, attempt):
            asked.append(step)
            if delay is None:
                return
            time.sleep(delay)
        answer(self, trial_id, attempt_no, step, value)

    monkeypatch.setattr(DaskExecutor, "verdict", verdict)
    return asked


@pytest.mark.slow
def test_a_worker_dying_while_its_trial_waits_for_a_verdict_loses_nothing(store, dask_client, tmp_path,
                                                                          monkeypatch):
    asked = late_answers(monkeypatch, 3.0, trial=0, attempt=0)  # the worker dies 1 s into this wait
    search = hpnb.search(partial(objectives.dies_waiting, marker_dir=str(tmp_path)), store=store,
                         client=dask_client, name="dies", metric="loss", trials=1, retries=2,
                         strategy={"name": "fixed", "configs": [{"x": 0.5}]}, parameters={"x": [0.5]},
                         early_stopping={"rule": "median", "every": 4, "min_trials": 9, "grace": 4})
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    [trial] = store.trials(search.experiment_id)
    assert (trial.state, trial.retries, asked[:1]) == ("COMPLETED", 1, [4])
    rows = store.results(search.experiment_id)
    assert [r.step for r in rows] == [1, 2, 3, 4, 5, 6]  # every step once
    assert rows[-1].metrics["started_at"] == 5  # the retry continued from the checkpoint of step 4


@pytest.mark.slow
def test_a_trial_whose_driver_does_not_answer_goes_on_after_the_bounded_wait(store, dask_client,
                                                                             monkeypatch):
    monkeypatch.setattr(context_module, "VERDICT_TIMEOUT", 0.5)
    asked = late_answers(monkeypatch, None, trial=0, attempt=0)
    search = hpnb.search(partial(objectives.learning_curve, steps=6, pause=0.0), store=store,
                         client=dask_client, name="mute", metric="loss", trials=1,
                         parameters={"rate": ONE["x"]},
                         early_stopping={"rule": "asha", "grace": 2, "reduction": 2, "max_t": 6})
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    [trial] = store.trials(search.experiment_id)
    assert trial.state == "COMPLETED" and trial.last_step == 6 and asked == [2, 4, 6]
    waits = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "verdict_timeout"]
    # recorded: it went on by itself, at its last step (max_t) too, where no report followed the wait
    assert sorted(s for w in waits for s in w["steps"]) == [2, 4, 6]


@pytest.mark.slow
def test_a_paused_trial_resumes_on_another_worker_when_its_worker_died(store, dask_client):
    search = hpnb.search(slow_member, store=store, client=dask_client, name="paused-dies", metric="loss",
                         trials=2, parallel=1, parameters={"x": {"min": 1.0, "max": 2.0}},
                         early_stopping={"rule": "median", "every": 1, "min_trials": 99})
    trial = _wait_for(lambda: _running_with_checkpoint(store, search))
    search.pause_trial(trial)
    _wait_for(lambda: store.trial(search.experiment_id, trial).state == "PAUSED")
    worker = store.trial(search.experiment_id, trial).worker
    pid = dask_client.run(os.getpid, workers=[worker])[worker]
    os.kill(pid, signal.SIGKILL)  # its nanny starts a new worker process
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    rows = store.results(search.experiment_id, trial_id=trial)
    assert [r.step for r in rows] == list(range(1, 31))
    assert store.trial(search.experiment_id, trial).retries == 0  # a pause is no failure


DRIVER_SCRIPT = """
import sys, functools, cloudpickle
sys.path.insert(0, {root!r})
import hpnb
from distributed import Client
from hpnb.runner import context
from tests.runner import resumable
cloudpickle.register_pickle_by_value(resumable)
context.VERDICT_TIMEOUT = {timeout!r}
if __name__ == "__main__":
    client = Client({address!r})
    hpnb.search(functools.partial(resumable.marked_steps, marker_dir={markers!r}), name="orphans",
                store={store!r}, client=client, metric="loss", trials=6, parallel=2, seed=2,
                parameters={{"x": {{"min": 1.0, "max": 2.0}}}},
                early_stopping={{"rule": "median", "grace": 2, "every": 2, "min_trials": 99}}).wait()
"""
#: the bounded wait of the killed driver's trials (seconds)
ORPHAN_TIMEOUT = 1.0


def _marks(markers: Path) -> list[tuple[int, float]]:
    """Every (step, time) the trials ran, whoever drove them."""
    return [(int(step), float(at)) for path in markers.glob("*.steps")
            for step, at in (line.split() for line in path.read_text().splitlines())]


@pytest.mark.slow
def test_a_search_whose_driver_died_while_trials_waited_is_resumed_whole(tmp_path):
    port = processes.free_port()
    address, store_path, markers = f"tcp://127.0.0.1:{port}", tmp_path / "hpnb.sqlite", tmp_path / "marks"
    markers.mkdir()
    cluster = [processes.scheduler(port, tmp_path)]
    try:
        cluster += processes.workers(address, tmp_path, 2)
        script = tmp_path / "driver.py"
        script.write_text(DRIVER_SCRIPT.format(root=str(processes.ROOT), address=address,
                                               markers=str(markers), store=str(store_path),
                                               timeout=ORPHAN_TIMEOUT))
        driver = subprocess.Popen([sys.executable, str(script)])
        try:
            processes.wait_for(lambda: _stored_steps(store_path) >= 3, timeout=60)
        finally:
            driver.kill()  # the driver only: its trials wait at steps 2, 4, 6, 8 for verdicts nobody gives
            driver.wait(patience(10))
        killed = time.time()
        # a step every 0.3 s and a decision point every 2 steps: a trial still running this long after
        # the kill went past a decision point without its verdict, after the bounded wait
        processes.wait_for(lambda: any(at > killed + 2 * ORPHAN_TIMEOUT + 0.6 for _, at in _marks(markers)),
                           timeout=30)
        processes.wait_for(lambda: hpnb.load("orphans", store=store_path).state == "INTERRUPTED",
                           timeout=3 * STALE_AFTER)
        from distributed import Client
        with Client(address) as client:
            search = hpnb.resume("orphans", partial(resumable.marked_steps, marker_dir=str(markers)),
                                 store=store_path, client=client)
            assert search.wait(patience(180)).state == "COMPLETED", search.message
        with Store(store_path, readonly=True) as store:
            trials = store.trials(search.experiment_id)
            assert len(trials) == 6 and {t.state for t in trials} == {"COMPLETED"}
            for trial in trials:
                steps = [r.step for r in store.results(search.experiment_id, trial_id=trial.trial_id)]
                assert steps == list(range(1, 9)), (trial.trial_id, steps)
    finally:
        processes.stop_all(cluster)


def _stored_steps(store_path: Path, name: str = "orphans") -> int:
    if not store_path.exists():
        return 0
    with Store(store_path, readonly=True) as store:
        found = store.find_experiment(name)
        return 0 if found is None else store.result_count(found.id)


PAUSING_DRIVER = """
import sys, time, functools, cloudpickle
sys.path.insert(0, {root!r})
import hpnb
from distributed import Client
from hpnb.core.store import Store
from tests.runner import resumable
cloudpickle.register_pickle_by_value(resumable)
if __name__ == "__main__":
    client = Client({address!r})
    search = hpnb.search(functools.partial(resumable.counted_steps, steps=40, pause=0.1), name="parked",
                         store={store!r}, client=client, metric="loss", trials=2, parallel=1, seed=1,
                         parameters={{"x": {{"min": 1.0, "max": 2.0}}}})
    with Store({store!r}, readonly=True) as store:
        while not any(t.trial_id == 0 and t.checkpoint and (t.last_step or 0) >= 3
                      for t in store.trials(search.experiment_id)):
            time.sleep(0.05)
    search.pause_trial(0)
    search.wait()  # the test kills this process once trial 0 is PAUSED
"""


@pytest.mark.slow
def test_a_paused_trial_survives_its_driver_and_resumes_from_its_checkpoint(tmp_path):
    port = processes.free_port()
    address, store_path = f"tcp://127.0.0.1:{port}", tmp_path / "hpnb.sqlite"
    cluster = [processes.scheduler(port, tmp_path)]
    try:
        cluster += processes.workers(address, tmp_path, 2)
        script = tmp_path / "driver.py"
        script.write_text(PAUSING_DRIVER.format(root=str(processes.ROOT), address=address,
                                                store=str(store_path)))
        driver = subprocess.Popen([sys.executable, str(script)])
        try:
            processes.wait_for(lambda: _trial_state(store_path, "parked", 0) == "PAUSED", timeout=90)
        finally:
            driver.kill()  # the driver dies with trial 0 paused
            driver.wait(patience(10))
        with Store(store_path, readonly=True) as store:
            paused = store.trial(store.experiment("parked").id, 0)
        assert paused.state == "PAUSED" and paused.last_step is not None
        assert paused.checkpoint_step == paused.last_step  # paused at a report, with its checkpoint
        processes.wait_for(lambda: hpnb.load("parked", store=store_path).state == "INTERRUPTED",
                           timeout=3 * STALE_AFTER)
        from distributed import Client
        with Client(address) as client:
            search = hpnb.resume("parked", partial(resumable.counted_steps, steps=40, pause=0.1),
                                 store=store_path, client=client)
            assert search.wait(patience(180)).state == "COMPLETED", search.message
        with Store(store_path, readonly=True) as store:
            assert {t.state for t in store.trials(search.experiment_id)} == {"COMPLETED"}
            rows = store.results(search.experiment_id, trial_id=0)
            assert [r.step for r in rows] == list(range(1, 41))  # every step once: none lost, none twice
            assert {r.metrics["started_at"] for r in rows if r.step > paused.last_step} == \
                {paused.last_step + 1}  # the resumed search went on from its checkpoint
            resumed = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "resume"]
            assert [(e["trial"], e["from_step"]) for e in resumed] == [(0, paused.last_step)]
    finally:
        processes.stop_all(cluster)


def _trial_state(store_path: Path, name: str, trial_id: int) -> str | None:
    if not store_path.exists():
        return None
    with Store(store_path, readonly=True) as store:
        found = store.find_experiment(name)
        if found is None or not store.trials(found.id):
            return None
        return store.trial(found.id, trial_id).state
