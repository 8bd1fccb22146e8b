"""Checkpoints by reference, folder checkpoints, a trial's own context and artifacts, on a real Dask
cluster, with the checkpoint store a folder and a real S3-compatible server (moto's)."""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

import hpnb
from hpnb.cli import main as cli_main
from hpnb.jupyter.dashboard import trial_artifacts
from hpnb.runner.checkpoint_refs import CheckpointRefs
from hpnb.runner.checkpoint_store import CheckpointStoreError
from hpnb.runner.stuck_threads import _cancelled_still_running
from tests.runner import checkpointing_objectives, objectives, resumable
from tests.waiting import patience, wait_until

cloudpickle.register_pickle_by_value(checkpointing_objectives)
cloudpickle.register_pickle_by_value(resumable)

# every test here runs searches on a real Dask cluster, with checkpoints: a loaded 2-core machine
# may take several times as long as a quiet one
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

TWO = {"name": "fixed", "configs": [{"x": 1.0}, {"x": 2.0}]}


def steps_of(store, search, trial_id: int) -> list[int | None]:
    return [r.step for r in store.results(search.experiment_id, trial_id=trial_id)]


def kinds(store, search) -> list[str]:
    return [e["kind"] for e in store.events(search.experiment_id)]


def test_folder_checkpoints_resume_after_a_killed_worker_with_the_trials_dir_and_artifacts(
        store, dask_client, capsys):
    search = hpnb.search(partial(checkpointing_objectives.saves_folders, steps=4, kill_at=1), name="folders",
                         store=store, client=dask_client, metric="loss", strategy=TWO,
                         parameters={"x": [1.0, 2.0]}, retries=2, parallel=1).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        assert (trial.state, trial.retries) == ("COMPLETED", 1)
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        assert [r.step for r in rows] == [0, 1, 2, 3]
        assert rows[-1].metrics["started_at"] == 2  # the retry loaded the folder of step 1
        assert rows[-1].value == pytest.approx(4 * (trial.trial_id + 1.0))  # its weights carried on
        names = [a["name"] for a in search.artifacts(trial.trial_id)]
        assert names[:2] == ["out/predictions.csv", "plots/curve.html"] or names[1] == "plots/curve.png"
        assert names[2:] == ["tiny.png", "train.log"]
        # the dashboard's panel under the trial's log: the image inline
        panel = trial_artifacts.artifacts_html(search.artifacts(trial.trial_id),
                                               search.checkpoint_store().fs.cat_file)
        assert "<code>tiny.png</code>" in panel and "src='data:image/png;base64," in panel
        log = Path(next(a["path"] for a in search.artifacts(trial.trial_id) if a["name"] == "train.log"))
        # its dir survived the retry (an attempt lost in the queue before it began takes a number too)
        first, retried = log.read_text().splitlines()
        assert first == "attempt 0 from 0" and re.fullmatch(r"attempt [1-9] from 2", retried)
    folders = list((store.path.parent / "checkpoints").glob("folders-*/trial-*/ckpt-*"))
    assert len(folders) == 2  # keep: 1 per trial, the others deleted once a newer one was stored
    assert cli_main(["show", "folders", "--trial", "1", "--store", str(store.path)]) == 0
    assert "out/predictions.csv" in capsys.readouterr().out


def test_a_worker_killed_the_instant_a_checkpoint_report_returns_resumes_from_that_checkpoint(
        store, dask_client):
    configs = [{"x": float(i)} for i in range(3)]
    search = hpnb.search(partial(checkpointing_objectives.killed_as_it_reports, steps=3, kill_at=1),
                         name="reported", store=store, client=dask_client, metric="loss",
                         strategy={"name": "fixed", "configs": configs}, parameters={"x": [0.0, 1.0, 2.0]},
                         retries=2, parallel=1).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        assert (trial.state, trial.retries) == ("COMPLETED", 1)
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        assert [r.step for r in rows] == [0, 1, 2]
        assert rows[-1].metrics["started_at"] == 2  # the retry began after step 1's checkpoint


def test_a_checkpoint_deleted_from_the_store_resumes_from_the_one_before(store, dask_client):
    search = hpnb.search(partial(checkpointing_objectives.loses_its_latest, steps=6, kill_at=3),
                         name="lost-latest", store=store, client=dask_client, metric="loss",
                         strategy={"name": "fixed", "configs": [{"x": 0.0}]}, parameters={"x": [0.0]},
                         checkpoints={"keep": 2}, retries=2).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    rows = store.results(search.experiment_id, trial_id=0)
    assert [r.step for r in rows] == list(range(6))
    assert rows[-1].metrics["started_at"] == 3  # from step 2's checkpoint: step 3's was gone
    missing = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "checkpoint_missing"]
    assert [m["step"] for m in missing] == [3]


@pytest.fixture
def driver_dies(monkeypatch) -> Iterator[Callable[[], None]]:
    """The driver fails at its third checkpoint stored (after the store has it); call to undo."""
    committed = CheckpointRefs.committed
    calls: list[str] = []

    def dies_on_the_third(self, trial_id, ref):
        calls.append(ref)
        if len(calls) == 3:
            raise RuntimeError("the driver dies")
        committed(self, trial_id, ref)

    monkeypatch.setattr(CheckpointRefs, "committed", dies_on_the_third)
    yield lambda: monkeypatch.setattr(CheckpointRefs, "committed", committed)


COUNTED = partial(resumable.counted_steps, steps=30, pause=0.05)


def _interrupted(store, client, name: str, **options):
    """A search of one trial of :data:`COUNTED` whose driver died (see ``driver_dies``), and the
    trial as it was left."""
    search = hpnb.search(COUNTED, name=name, store=store, client=client, metric="loss",
                         strategy={"name": "fixed", "configs": [{"x": 1.0}]}, parameters={"x": [1.0]},
                         **options).wait(patience(60))
    assert search.state == "FAILED" and "the driver dies" in search.message
    # its trial goes on writing checkpoints until its next report finds no driver: wait for its end,
    # its thread's too (a task the scheduler cancelled leaves the scheduler's processing at once)
    wait_until(lambda: not any(client.processing().values())
               and not any(client.run(_cancelled_still_running).values()),
               message="the dead driver's trial to end")
    return search, store.trial(search.experiment_id, 0)


def _resumed_steps(store, name: str, client, stopped) -> set[int]:
    """Resume ``name``: every step reported once; the steps the resumed attempts started at."""
    resumed = hpnb.resume(name, COUNTED, store=store, client=client).wait(patience(600))
    assert resumed.state == "COMPLETED", resumed.message
    rows = store.results(resumed.experiment_id, trial_id=0)
    assert [r.step for r in rows] == list(range(1, 31))
    return {r.metrics["started_at"] for r in rows if r.step > stopped.last_step}


def test_keep_two_falls_back_across_a_resume_and_deletes_the_older_ones(store, dask_client, driver_dies):
    search, stopped = _interrupted(store, dask_client, "keep-two", checkpoints={"keep": 2})
    checkpoints = search.checkpoint_store()
    checkpoints.delete(stopped.checkpoint)  # lost: the resume must take the one kept before it
    driver_dies()
    # from the checkpoint of the step before the lost one
    assert _resumed_steps(store, "keep-two", dask_client, stopped) == {stopped.checkpoint_step}
    assert [checkpoints.manifest(r)["step"] for r in checkpoints.refs(0)] == [29, 30]  # keep: 2


def test_a_checkpoint_file_of_the_earlier_layout_is_resumed_from(store, dask_client, driver_dies):
    """Earlier versions kept ``checkpoints/<experiment id>/trial-<id>-<n>.pkl``: the object pickled."""
    search, stopped = _interrupted(store, dask_client, "earlier")
    checkpoints = search.checkpoint_store()
    legacy = store.path.parent / "checkpoints" / str(search.experiment_id) / f"trial-0-{time.time_ns()}.pkl"
    legacy.parent.mkdir()
    legacy.write_bytes(pickle.dumps(checkpoints.read_object(stopped.checkpoint)))
    store.set_checkpoint(search.experiment_id, 0, stopped.checkpoint_step, legacy.name)
    shutil.rmtree(checkpoints.path(checkpoints.location.key))  # those versions had no checkpoint store
    driver_dies()
    assert _resumed_steps(store, "earlier", dask_client, stopped) == {stopped.checkpoint_step + 1}
    assert legacy.exists()  # the user's file, left alone


def test_two_drivers_sharing_a_checkpoint_store_never_delete_each_others(tmp_path, dask_client):
    """Two hpnb stores, each with its own search of the same name and id, one checkpoint folder."""
    shared = {"store": str(tmp_path / "shared-checkpoints"), "keep": 1}
    objective = partial(resumable.counted_steps, steps=12, pause=0.02)
    searches = [hpnb.search(objective, name="same", store=tmp_path / n / "hpnb.sqlite", client=dask_client,
                            metric="loss", strategy={"name": "fixed", "configs": [{"x": x}]},
                            parameters={"x": [x]}, checkpoints=shared)
                for n, x in (("first", 1.0), ("second", 2.0))]
    for search in searches:
        assert search.wait(patience(600)).state == "COMPLETED", search.message
        assert search.experiment_id == 1
    kept = [search.checkpoint_store() for search in searches]
    assert kept[0].location.key != kept[1].location.key
    for checkpoints in kept:
        [ref] = checkpoints.refs(0)
        assert checkpoints.read_object(ref) == {"step": 12}


def test_a_store_that_cannot_be_written_fails_before_anything_starts(store, dask_client, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(CheckpointStoreError, match="cannot write to"):
        hpnb.search(objectives.quadratic, name="unwritable", store=store, client=dask_client, metric="loss",
                    parameters={"x": [0.0]}, checkpoints={"store": str(blocker / "ckpt")})
    assert store.find_experiment("unwritable") is None


class _RemoteCluster:
    """Two worker processes that share no folder with the driver: their temp folder is their own,
    and they reach checkpoints only through the S3 server."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.client = self._started()

    def _started(self) -> Any:
        from distributed import Client, LocalCluster

        return Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None, env=self.env))

    def ready(self) -> Any:
        """The client, once both workers are up. A test before may have killed one: its nanny
        starts it again, and when it has not within two minutes (a loaded machine), a new cluster
        replaces this one."""
        try:
            self.client.wait_for_workers(2, timeout=120)
        except TimeoutError:
            self.close()
            self.client = self._started()
            self.client.wait_for_workers(2, timeout=120)
        return self.client

    def close(self) -> None:
        cluster = self.client.cluster
        self.client.close()
        cluster.close()


@pytest.fixture(scope="module")
def remote_cluster(s3_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_RemoteCluster]:
    worker_tmp = tmp_path_factory.mktemp("worker-disk")
    env = {k: os.environ[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION",
                                      "AWS_ENDPOINT_URL")}
    remote = _RemoteCluster({**env, "TMPDIR": str(worker_tmp)})
    yield remote
    remote.close()


@pytest.fixture
def remote_client(remote_cluster: _RemoteCluster) -> Any:
    """The two workers' client, once both are up."""
    return remote_cluster.ready()


def _block_local_checkpoints(store) -> None:
    """A file where the driver's default checkpoint folder would be: nothing can be kept there."""
    (store.path.parent / "checkpoints").write_text("the checkpoints are in S3")


def test_on_s3_a_killed_worker_resumes_from_its_folder_checkpoint(store, remote_client, s3_url):
    _block_local_checkpoints(store)
    objective = partial(checkpointing_objectives.saves_folders, steps=4, kill_at=1)
    search = hpnb.search(objective, name="s3-folders", store=store, client=remote_client, metric="loss",
                         strategy=TWO, parameters={"x": [1.0, 2.0]}, retries=2, parallel=1,
                         checkpoints={"store": f"{s3_url}/folders"}).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        assert [r.step for r in rows] == [0, 1, 2, 3] and rows[-1].metrics["started_at"] == 2
        # the kill's retry resumed after step 1's checkpoint; on a loaded machine the retried attempt
        # can be lost as well (seen once: two retries), which must resume from the same place
        retries = [e["data"] for e in store.events(search.experiment_id)
                   if e["kind"] == "retry" and e["data"]["trial"] == trial.trial_id]
        assert trial.checkpoint is not None and trial.retries == len(retries) >= 1
        assert retries[0]["from_step"] == 1
        artifacts = search.artifacts(trial.trial_id)
        assert [a["name"] for a in artifacts if a["name"].endswith((".csv", ".log"))] == [
            "out/predictions.csv", "train.log"]
        assert all(a["path"].startswith("hpnb-tests/folders/") for a in artifacts)
    assert "checkpoint_failed" not in kinds(store, search)


def test_on_s3_a_folder_checkpoint_half_uploaded_by_a_dying_worker_is_never_used(store, remote_client, s3_url,
                                                                                 tmp_path):
    _block_local_checkpoints(store)
    url, marker = f"{s3_url}/half", tmp_path / "half-uploaded.json"
    search = hpnb.search(partial(checkpointing_objectives.dies_mid_upload, store_url=url, marker=str(marker)),
                         name="s3-half", store=store, client=remote_client, metric="loss",
                         strategy={"name": "fixed", "configs": [{"x": 1.0}]}, parameters={"x": [1.0]},
                         retries=1, checkpoints={"store": url}).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    # what the store held when the worker died: some or all of its 65 files, never the manifest (the watcher
    # kills only then; on a fast machine all data files can be up before it looks)
    half = json.loads(marker.read_text())
    assert 1 <= half["files"] <= 65
    rows = store.results(search.experiment_id, trial_id=0)
    assert [r.step for r in rows] == [0, 1, 2] and rows[-1].metrics["started_at"] == 1  # from step 0's
    checkpoints = search.checkpoint_store()
    assert not checkpoints.fs.exists(half["folder"])  # swept at the end of the run
    assert [checkpoints.manifest(r)["step"] for r in checkpoints.refs(0)] == [2]


def test_on_s3_population_based_training_exploits_across_workers(store, remote_client, s3_url):
    _block_local_checkpoints(store)
    remote_client.run(lambda: __import__("hpnb.testing.pbt_toy"))
    search = hpnb.search(
        partial(objectives.toy_member, steps=120, pause=0.02), name="s3-pbt", store=store,
        client=remote_client, metric="q", mode="max", seed=0, parallel=2,
        checkpoints={"store": f"{s3_url}/pbt"},
        parameters={"h0": {"min": 0.0, "max": 1.0}, "h1": {"min": 0.0, "max": 1.0}},
        strategy={"name": "pbt", "population": 2, "ready": 4, "explore": "resample",
                  "resample_probability": 1.0, "initial": [{"h0": 1.0, "h1": 0.0}, {"h0": 0.0, "h1": 0.6}]},
    ).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    assert "exploit" in kinds(store, search)
    rows = store.results(search.experiment_id)
    # a restarted member loaded, from S3, a checkpoint another worker process wrote
    assert any(r.metrics["loaded_from"] not in (-1, r.metrics["pid"]) for r in rows)


def test_a_store_the_workers_cannot_read_is_an_error_before_any_trial(store, s3_url):
    """The driver reaches the S3 server; the workers are pointed at another one (a process of its own,
    so it shares no bucket), which lacks the bucket."""
    from distributed import Client, LocalCluster

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    other = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {k: os.environ[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")}
    try:
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                          env={**env, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}) as cluster, \
                Client(cluster) as client:
            with pytest.raises(CheckpointStoreError, match="the workers cannot read 's3://hpnb-tests/elsewhere'"):
                hpnb.search(objectives.quadratic, name="unseen", store=store, client=client, metric="loss",
                            parameters={"x": [0.0]}, checkpoints={"store": f"{s3_url}/elsewhere"})
    finally:
        other.terminate()
        other.wait(patience(10))
    assert store.trials(store.experiment("unseen").id) == []
