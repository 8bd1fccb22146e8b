"""What trials print, kept per trial, on real Dask clusters: apart when trials share a process,
bounded, readable, with the traceback, the worker and the peak memory; shown by the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial

import cloudpickle
import pytest
from distributed import Client, LocalCluster

import hpnb
from hpnb.core.trial_output import MAX_BYTES, MAX_LINES
from tests.core.store.test_store_trial_logs import stored_bytes
from tests.runner import printing
from tests.runner.processes import ROOT
from tests.waiting import patience

cloudpickle.register_pickle_by_value(printing)

MiB = 2**20


def _fixed(name: str, *values: object) -> dict[str, object]:
    return {"name": "fixed", "configs": [{name: value} for value in values]}


@pytest.fixture(scope="module")
def one_process_two_threads() -> Iterator[Client]:
    """One worker process running two trials at once on two threads (they share sys.stdout)."""
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            yield client


@pytest.mark.slow
def test_two_trials_printing_at_once_in_one_process_keep_their_own_output(store, one_process_two_threads):
    search = hpnb.search(printing.chatty, name="chatty", store=store, client=one_process_two_threads,
                         metric="loss", strategy=_fixed("tag", "alpha", "beta"),
                         parameters={"tag": ["alpha", "beta"]}, parallel=2)
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    first, second = store.trials(search.experiment_id)
    assert first.start < second.end and second.start < first.end, "the trials did not run at once"
    for trial, tag, other in ((first, "alpha", "beta"), (second, "beta", "alpha")):
        log = search.logs(trial.trial_id)
        assert log.stdout.splitlines() == [f"{tag} line {i}" for i in range(300 - MAX_LINES, 300)]
        assert log.stderr.splitlines() == [f"{tag} warned at {i}" for i in range(0, 300, 50)]
        assert other not in log.stdout + log.stderr
        assert log.worker == trial.worker and log.worker.startswith("tcp://")
        assert log.peak_memory_bytes is not None and log.peak_memory_bytes > 20 * MiB
        assert (log.state, log.traceback, log.truncated, log.note) == ("COMPLETED", None, True, None)


@pytest.mark.slow
def test_a_flood_and_a_100_mb_line_keep_the_limits_and_memory_flat(store, dask_client):
    search = hpnb.search(printing.floods, name="flood", store=store, client=dask_client, metric="loss",
                         strategy=_fixed("lines", 5000), parameters={"lines": [5000]})
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    log = search.logs(0)
    lines = log.stdout.splitlines()
    assert len(log.stdout.encode()) <= MAX_BYTES and len(lines) <= MAX_LINES
    assert lines[-1] == "after the big line"
    assert lines[-2] == "y" * len(lines[-2]) and len(log.stdout.encode()) > MAX_BYTES - 100
    assert log.truncated and log.stdout_bytes > 100 * MiB
    # the 100 MB print cost the worker next to nothing beyond the string the trial built
    assert store.trial(search.experiment_id, 0).metrics["print_peak"] < 1 * MiB
    assert log.peak_memory_bytes is not None and log.peak_memory_bytes > 100 * MiB
    assert stored_bytes(store.path) < 2 * MiB


@pytest.mark.slow
def test_binary_garbage_is_kept_readable(store, dask_client):
    search = hpnb.search(printing.garbage, name="garbage", store=store, client=dask_client, metric="loss",
                         trials=1, parameters={})
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    log = search.logs(0)
    assert log.stdout.endswith("readable end\n")
    assert "\ufffd" in log.stdout
    text = log.stdout + log.stderr
    assert not [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0xD800 <= ord(c) <= 0xDFFF]
    assert log.stderr == "red alert\n"
    assert len(log.stdout.encode()) <= MAX_BYTES


@pytest.mark.slow
def test_a_failed_trial_keeps_what_it_printed_and_its_traceback(store, dask_client):
    search = hpnb.search(printing.fails_after_printing, name="fails", store=store, client=dask_client,
                         metric="loss", strategy=_fixed("x", 0.5), parameters={"x": [0.5]}, max_failures=5)
    search.wait(patience(120))
    log = search.logs(0)
    assert log.state == "FAILED"
    assert log.stdout == "about to fail with x=0.5\n"
    assert log.traceback.startswith("Traceback (most recent call last)")
    assert log.traceback.rstrip().endswith("ValueError: diverged at x=0.5")
    assert log.worker is not None


@pytest.mark.slow
def test_a_stopped_trial_keeps_what_it_printed_until_it_stopped(store, dask_client):
    search = hpnb.search(printing.prints_and_reports, name="stopped", store=store, client=dask_client,
                         metric="loss", strategy=_fixed("x", 0.5), parameters={"x": [0.5]})
    deadline = time.monotonic() + 60
    while len(store.results(search.experiment_id)) < 20:
        assert time.monotonic() < deadline, "the trial did not report"
        time.sleep(0.05)
    search.stop_trial(0)
    search.wait(patience(60))
    log = search.logs(0)
    assert log.state == "STOPPED" and log.traceback is None
    steps = [int(line.split()[1]) for line in log.stdout.splitlines()]
    assert steps == list(range(steps[0], steps[0] + len(steps))) and 20 <= steps[-1] < 1999
    assert steps[-1] == max(row.step for row in store.results(search.experiment_id))


@pytest.mark.slow
def test_a_trial_that_does_not_return_keeps_what_it_printed_until_then(store, dask_client):
    search = hpnb.search(partial(printing.hangs_after_printing, seconds=8.0), name="stuck", store=store,
                         client=dask_client, metric="loss", strategy=_fixed("x", 0.25),
                         parameters={"x": [0.25]}, trial_timeout="1s", retries=0, max_failures=5)
    search.wait(patience(120))
    log = search.logs(0)
    assert log.state == "FAILED" and "ran longer than 1s" in log.traceback
    assert log.stdout == "before the hang x=0.25\n"
    assert "did not return after it was asked to stop" in log.note
    assert log.worker is not None


@pytest.mark.slow
def test_an_unknown_trial_id_is_named_with_the_ids_there_are(store, dask_client):
    search = hpnb.search(printing.fails_after_printing, name="few", store=store, client=dask_client,
                         metric="loss", strategy=_fixed("x", 0.1, 0.2), parameters={"x": [0.1, 0.2]},
                         max_failures=5)
    search.wait(patience(120))
    with pytest.raises(hpnb.HpnbError, match=r"search 'few' has no trial 5; its trials are 0 to 1"):
        search.logs(5)


@pytest.mark.slow
def test_hpnb_show_trial_prints_the_log(store, dask_client):
    search = hpnb.search(printing.fails_after_printing, name="cli-log", store=store, client=dask_client,
                         metric="loss", strategy=_fixed("x", 0.75), parameters={"x": [0.75]}, max_failures=5)
    search.wait(patience(120))
    command = [sys.executable, "-m", "hpnb", "show", "cli-log", "--trial", "0", "--store", str(store.path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shown = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("cli-log trial 0  [FAILED]")
    assert f"  worker       {search.logs(0).worker}" in out
    assert "  peak memory  " in out and " MiB" in out
    assert "stdout\n  about to fail with x=0.75\n" in out
    assert "stderr\n  (nothing)\n" in out
    assert "traceback\n  Traceback (most recent call last)" in out and "ValueError: diverged at x=0.75" in out

    as_json = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=120, cwd=ROOT,
                             env=env)
    assert json.loads(as_json.stdout)["stdout"] == "about to fail with x=0.75\n"

    unknown = subprocess.run([*command[:-4], "--trial", "9", "--store", str(store.path)], capture_output=True,
                             text=True, timeout=120, cwd=ROOT, env=env)
    assert unknown.returncode == 2
    assert "search 'cli-log' has no trial 9; its trials are 0 to 0" in unknown.stderr
