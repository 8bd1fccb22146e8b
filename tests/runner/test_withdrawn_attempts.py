"""An attempt the driver takes back (its start not yet heard of) on a real Dask cluster: a worker
that already began it must not run it on unseen, past the search's end and into its cluster's close."""

from __future__ import annotations

import functools
import time
from pathlib import Path

from hpnb.runner.dask_executor import DaskExecutor
from hpnb.runner.executor import AttemptStarted
from hpnb.runner.worker.objective import TrialTask
from tests.runner import objectives


def _steps(marker: Path) -> int:
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def test_an_attempt_taken_back_after_a_worker_began_it_stops_at_its_next_report(dask_client, tmp_path):
    marker = tmp_path / "steps"
    executor = DaskExecutor(dask_client)
    events: list[object] = []
    executor.sink = events.append
    objective = functools.partial(objectives.marks_steps, marker=str(marker))
    try:
        executor.submit(objective, TrialTask("withdrawn", 0, 0, {"x": 0.5}, "loss"))
        deadline = time.monotonic() + 60
        while _steps(marker) < 2 and time.monotonic() < deadline:  # running on its worker
            time.sleep(0.02)
        assert _steps(marker) >= 2
        # as the driver does when a search stops before the attempt's start message arrived
        executor.cancel(0, 0)
        time.sleep(1.0)
        after_cancel = _steps(marker)
        time.sleep(1.0)
        assert _steps(marker) == after_cancel < 100  # it returned: 400 steps of 0.05 s were asked
        assert any(isinstance(e, AttemptStarted) for e in events)
    finally:
        executor.close()
