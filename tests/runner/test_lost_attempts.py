"""A trial lost with its worker, on a real Dask cluster: the driver hears of it once a memory report
from the worker's nanny came or could no longer come, and meanwhile its slot stays counted, so the
other trials keep every slot the workers have."""

from __future__ import annotations

import functools
import os
import signal

import pytest

from hpnb.cluster.connect import local_client
from hpnb.core.spec.resources import Resources
from hpnb.runner import dask_executor
from hpnb.runner.cluster_watch import MEMORY_RESTART_TOPIC
from hpnb.runner.dask_executor import DaskExecutor
from hpnb.runner.executor import AttemptDone, AttemptStarted
from hpnb.runner.worker.objective import TrialTask
from tests.runner import objectives
from tests.waiting import wait_until


@pytest.mark.slow
def test_a_lost_trial_keeps_its_slot_until_told_and_a_late_memory_report_names_why(tmp_path, monkeypatch):
    monkeypatch.setattr(dask_executor, "MEMORY_REPORT_GRACE", 120.0)  # only the report ends the wait
    client = local_client(Resources(workers=2))
    executor = DaskExecutor(client)
    events: list[object] = []
    executor.sink = events.append
    try:
        client.wait_for_workers(2, timeout=60)
        objective = functools.partial(objectives.marks_steps, marker=str(tmp_path / "steps"))
        executor.submit(objective, TrialTask("lost", 0, 0, {"x": 0.5}, "loss"))
        started = wait_until(lambda: next((e for e in events if isinstance(e, AttemptStarted)), None),
                             timeout=60, message="the trial's start")
        pid = client.run(os.getpid, workers=[started.worker])[started.worker]
        os.kill(pid, signal.SIGKILL)
        # the driver still counts the trial as running: its slot is counted with it
        wait_until(lambda: executor.capacity() == executor.slots + 1, timeout=60,
                   message="the lost trial's slot counted while its end waits")
        assert not [e for e in events if isinstance(e, AttemptDone)]
        # the nanny's report of a memory-limit restart, as Dask's nannies publish it
        client.log_event(MEMORY_RESTART_TOPIC, {"worker": started.worker, "pid": pid, "rss": 700 * 2**20})
        done = wait_until(lambda: next((e for e in events if isinstance(e, AttemptDone)), None),
                          timeout=60, message="the lost trial's end")
        assert done.outcome is None
        assert done.reason.startswith(f"memory limit: the worker {started.worker} used 700 MiB")
        assert executor.capacity() == executor.slots
    finally:
        executor.close()
        cluster = client.cluster
        client.close()
        cluster.close()
