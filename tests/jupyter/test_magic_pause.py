"""``%hpsearch pause NAME ID`` and ``%hpsearch resume NAME ID`` on a real search (local Dask cluster,
real store file) in a real IPython shell."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests.jupyter.magic_shell import magic_shell
from tests.runner.processes import wait_for
from tests.waiting import patience

pytestmark = pytest.mark.slow

# one at a time: trial 0 fails, trial 1 completes in 3 steps, trials 2 and 3 run 30 steps of 0.1 s
# with a checkpoint each (trial 3 runs while trial 2 is paused: a paused trial is resumed by itself
# when nothing else is left to run)
SPEC = """metric: loss
trials: 4
parallel: 1
strategy: {name: fixed, configs: [{x: 0}, {x: 1}, {x: 2}, {x: 3}]}
parameters:
  x: [0, 1, 2, 3]
resources: {workers: 2}
"""

OBJECTIVES = """
import time
import hpnb

def parkable(x):
    if x == 0:
        raise ValueError("x = 0 is not allowed")
    state = hpnb.load_checkpoint() or {"step": 0}
    start, steps = state["step"] + 1, 3 if x == 1 else 30
    for step in range(start, steps + 1):
        time.sleep(0.1)  # the trial's work
        hpnb.report(step=step, loss=x / step, started_at=start, checkpoint={"step": step})
    return {"loss": x / steps}
"""


@pytest.fixture(scope="module")
def ip() -> Iterator[InteractiveShell]:
    with magic_shell(OBJECTIVES) as shell:
        yield shell


def refused(ip: InteractiveShell, line: str) -> str:
    """The message of the UsageError ``%hpsearch line`` raises."""
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("hpsearch", line)
    return str(info.value)


def test_pause_and_resume_a_trial_from_the_line_magic(ip: InteractiveShell, tmp_path: Path, capsys) -> None:
    store = tmp_path / "hpnb.sqlite"
    ip.run_cell_magic("hpsearch", f"parkable --name parked --store {store}", SPEC)
    search = ip.user_ns["parked"]
    states = lambda: {t.trial_id: t for t in search.store.trials(search.experiment_id)}  # noqa: E731
    wait_for(lambda: 2 in states() and states()[2].checkpoint and (states()[2].last_step or 0) >= 2)
    assert (states()[0].state, states()[1].state) == ("FAILED", "COMPLETED")

    where = f"--store {store}"
    assert "trial 0 is FAILED: only a running or pending trial can be paused" in refused(
        ip, f"pause parked 0 {where}")
    assert "trial 1 is COMPLETED: only a running or pending trial can be paused" in refused(
        ip, f"pause parked 1 {where}")
    assert "search 'parked' has no trial 9; its trials are 0 to" in refused(ip, f"pause parked 9 {where}")
    assert "trial 2 is RUNNING, not PAUSED" in refused(ip, f"resume parked 2 {where}")

    ip.run_line_magic("hpsearch", f"pause parked 2 {where}")
    assert "trial 2 pauses at its next decision point" in capsys.readouterr().out
    wait_for(lambda: states()[2].state == "PAUSED")
    paused_at = states()[2].last_step
    assert "trial 2 is paused already" in refused(ip, f"pause parked 2 {where}")
    wait_for(lambda: 3 in states() and states()[3].state == "RUNNING")  # its slot went to the next trial

    ip.run_line_magic("hpsearch", f"resume parked 2 {where}")
    assert "trial 2 resumes in the next free slot" in capsys.readouterr().out
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    rows = search.store.results(search.experiment_id, trial_id=2)
    assert [r.step for r in rows] == list(range(1, 31))  # every step once
    assert {r.metrics["started_at"] for r in rows if r.step > paused_at} == {paused_at + 1}

    message = refused(ip, f"pause parked 2 {where}")  # the search has ended: no driver to carry it out
    assert "search 'parked' is not running (COMPLETED)" in message


def test_pause_of_a_search_the_store_does_not_have_names_what_it_has(ip: InteractiveShell,
                                                                      tmp_path: Path) -> None:
    store = tmp_path / "hpnb.sqlite"
    message = refused(ip, f"pause nowhere 0 --store {store}")
    assert "nowhere" in message and "no experiment" in message.lower()
