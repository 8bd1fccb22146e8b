"""Worker crashes, driver crashes and resume, on real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from hpnb.core.summary import STALE_AFTER
from tests.runner import objectives, processes
from tests.waiting import patience

ROOT = processes.ROOT


@pytest.mark.slow
def test_a_worker_killed_mid_trial_is_retried_from_its_checkpoint(store, dask_client, tmp_path):
    objective = partial(objectives.crash_once, marker_dir=str(tmp_path), steps=10, crash_at=5)
    search = hpnb.search(objective, name="crash", store=store, client=dask_client, metric="loss",
                         strategy={"name": "fixed", "configs": [{"x": 0.0}, {"x": 100.0}]},
                         parameters={"x": [0.0, 100.0]}, retries=2, parallel=1)
    search.wait(patience(120))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        assert trial.state == "COMPLETED"
        assert trial.retries == 1
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        # every step once, in order: nothing lost, nothing stored twice
        assert [r.step for r in rows] == list(range(10))
        assert [r.seq for r in rows] == sorted({r.seq for r in rows})
        # the retry resumed after the last checkpointed step instead of starting over
        assert rows[-1].metrics["started_at"] >= 5
    kinds = [e["kind"] for e in store.events(search.experiment_id)]
    assert kinds.count("retry") == 2


@pytest.mark.slow
def test_a_trial_whose_worker_keeps_dying_fails_with_the_reason(store, dask_client, tmp_path):
    def dies(x):
        os.kill(os.getpid(), signal.SIGKILL)

    search = hpnb.search(dies, name="dies", store=store, client=dask_client, metric="loss", trials=1,
                         parameters={"x": [1.0]}, retries=1)
    search.wait(patience(120))
    trial = store.trials(search.experiment_id)[0]
    assert trial.state == "FAILED"
    assert "worker" in trial.error and "died" in trial.error
    assert trial.retries == 1


@pytest.mark.slow
def test_a_search_runs_on_dask_scheduler_and_worker_processes(store, tmp_path):
    port = processes.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [processes.scheduler(port, tmp_path)]
    try:
        started += processes.workers(address, tmp_path, 2)
        search = hpnb.search(partial(objectives.quadratic, sleep=0.1), name="remote", store=store,
                             metric="loss", trials=8, parallel=2, parameters={"x": {"min": 0.0, "max": 1.0}},
                             resources={"cluster": address})
        search.wait(patience(120))
        assert search.state == "COMPLETED", search.message
        trials = store.trials(search.experiment_id)
        assert len(trials) == 8 and {t.state for t in trials} == {"COMPLETED"}
        assert len({t.worker for t in trials}) == 2
        assert len(store.results(search.experiment_id)) == 24
    finally:
        processes.stop_all(started[::-1])


DRIVER_SCRIPT = """
import sys, functools, cloudpickle
sys.path.insert(0, {root!r})
import hpnb
from tests.runner import objectives, processes
cloudpickle.register_pickle_by_value(objectives)
if __name__ == "__main__":
    search = hpnb.search(functools.partial(objectives.logged_run, log_dir={log_dir!r}, sleep=0.4),
                         name="killed", store={store!r}, metric="loss", trials=12, parallel=2, seed=3,
                         strategy="random", parameters={{"x": {{"min": 0.0, "max": 1.0}}}},
                         resources={{"workers": 2}})
    search.wait()
"""


@pytest.mark.slow
def test_a_killed_driver_resumes_without_rerunning_completed_trials(tmp_path):
    store_path, log_dir = tmp_path / "hpnb.sqlite", tmp_path / "runs"
    log_dir.mkdir()
    script = tmp_path / "driver.py"
    script.write_text(DRIVER_SCRIPT.format(root=str(ROOT), log_dir=str(log_dir), store=str(store_path)))
    driver = subprocess.Popen([sys.executable, str(script)], start_new_session=True)
    try:
        completed_before = _wait_completed(store_path, "killed", at_least=4)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)  # the driver and its local cluster, like a dead kernel
        driver.wait(patience(10))
    # its heartbeat stops: within three heartbeat intervals it reads INTERRUPTED from here
    processes.wait_for(lambda: hpnb.load("killed", store=store_path).state == "INTERRUPTED",
                       timeout=3 * STALE_AFTER)
    search = hpnb.resume("killed", partial(objectives.logged_run, log_dir=str(log_dir), sleep=0.05),
                         store=store_path)
    search.wait(patience(120))
    assert search.state == "COMPLETED", search.message
    with Store(store_path, readonly=True) as store:
        trials = store.trials(search.experiment_id)
    assert [t.trial_id for t in trials] == list(range(12))
    assert {t.state for t in trials} == {"COMPLETED"}
    runs = Counter(line for f in log_dir.iterdir() for line in f.read_text().splitlines())
    for trial in trials:
        if trial.trial_id in completed_before:
            assert runs[repr(trial.params["x"])] == 1, f"trial {trial.trial_id} ran again"
    # the resumed strategy continued the seeded sequence: same params as an uninterrupted run
    fresh = hpnb.search(objectives.with_config, name="fresh", store=store_path, metric="loss", trials=12,
                        seed=3, strategy="random", parameters={"x": {"min": 0.0, "max": 1.0}},
                        resources={"workers": 2}).wait(patience(120))
    with Store(store_path, readonly=True) as store:
        expected = [t.params for t in store.trials(fresh.experiment_id)]
    assert [t.params for t in trials] == expected


TWO_SEARCHES_SCRIPT = """
import sys, functools, cloudpickle
sys.path.insert(0, {root!r})
import hpnb
from tests.runner import objectives, processes
cloudpickle.register_pickle_by_value(objectives)
if __name__ == "__main__":
    search = hpnb.search(functools.partial(objectives.flood, count=3000), name=sys.argv[1], store={store!r},
                         metric="loss", trials=6, parallel=1, parameters={{"x": {{"min": 0.0, "max": 1.0}}}},
                         resources={{"workers": 1}})
    search.wait()
    print(search.state)
"""


@pytest.mark.slow
def test_two_searches_in_two_processes_share_one_store(tmp_path):
    store_path = tmp_path / "hpnb.sqlite"
    script = tmp_path / "search.py"
    script.write_text(TWO_SEARCHES_SCRIPT.format(root=str(ROOT), store=str(store_path)))
    runs = [subprocess.Popen([sys.executable, str(script), name], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for name in ("first", "second")]
    outputs = [run.communicate(timeout=240) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode == 0, err
        assert out.strip() == "COMPLETED"
        assert "database is locked" not in err
    with Store(store_path, readonly=True) as store:
        for name in ("first", "second"):
            record = store.experiment(name)
            assert record.state == "COMPLETED"
            assert store.result_count(record.id) == 6 * 3000


def _wait_completed(store_path: Path, name: str, at_least: int, timeout: float = 90) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if store_path.exists():
            with Store(store_path, readonly=True) as store:
                record = store.find_experiment(name)
                if record is not None:
                    done = {t.trial_id for t in store.trials(record.id) if t.state == "COMPLETED"}
                    if len(done) >= at_least:
                        return done
        time.sleep(0.1)
    raise AssertionError(f"{name}: fewer than {at_least} trials completed in {timeout}s")
