"""An attempt the driver takes back (its start not yet heard of) on a real Dask cluster: a worker
that already began it must not run it on unseen, past the search's end and into its cluster's close."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from hpnb.runner.dask_executor import DaskExecutor
from hpnb.runner.executor import AttemptStarted
from hpnb.runner.worker.objective import TrialTask
from tests.runner import objectives
from tests.runner.processes import wait_for


def _lines(marker: Path) -> list[str]:
    return marker.read_text().splitlines() if marker.exists() else []


def _steps(marker: Path) -> int:
    return sum(line.isdigit() for line in _lines(marker))


@pytest.mark.slow
def test_an_attempt_taken_back_after_a_worker_began_it_stops_at_its_next_report(dask_client, tmp_path):
    marker = tmp_path / "steps"
    executor = DaskExecutor(dask_client)
    events: list[object] = []
    executor.sink = events.append
    objective = functools.partial(objectives.marks_steps, marker=str(marker))
    try:
        executor.submit(objective, TrialTask("withdrawn", 0, 0, {"x": 0.5}, "loss"))
        wait_for(lambda: _steps(marker) >= 2)  # running on its worker
        # as the driver does when a search stops before the attempt's start message arrived
        executor.cancel(0, 0)
        wait_for(lambda: "end" in _lines(marker))  # its thread returned
        assert _lines(marker)[-1] == "end" and _steps(marker) < 100  # 400 steps of 0.05 s were asked
        assert any(isinstance(e, AttemptStarted) for e in events)
    finally:
        executor.close()
