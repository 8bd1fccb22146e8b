"""The dashboard's controls in a real kernel while a ``--wait`` cell blocks and after it ended, as the
demo notebooks run them: a row click shows the trial's log and Stop trial stops it during the wait;
Set parallel shows the parallelism in force; Extend by continues the finished search in this kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hpnb
from tests.jupyter.kernel_session import KernelSession, hpnb_kernel
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

OBJECTIVE = """
import time
import hpnb

def slow(x, steps=400):
    print(f"training x={x:.3f}")
    for step in range(steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(0.01)  # the trial's work
    return {"loss": x}
"""

CELL = """%%hpsearch slow --name waited --trials 2 --wait
metric: loss
parameters:
  x: {min: 0.0, max: 1.0}
resources: {workers: 2}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory):
    with hpnb_kernel(tmp_path_factory.mktemp("hpnb_home"), OBJECTIVE) as session:
        yield session


def _states(home: Path, name: str) -> dict[int, str]:
    try:
        search = hpnb.load(name, store=home / "hpnb.sqlite")
    except Exception:
        return {}
    return {t.trial_id: t.state for t in search.store.trials(search.experiment_id)}


def _trials(home: Path) -> dict[int, str]:
    return _states(home, "waited")


def test_controls_act_while_the_cell_waits_and_extend_continues_it_after(kernel: KernelSession):
    home = kernel.home  # type: ignore[attr-defined]
    msg_id = kernel.client.execute(CELL)
    wait_until(lambda: "RUNNING" in _trials(home).values(), message="a running trial")
    running = next(t for t, state in _trials(home).items() if state == "RUNNING")
    tables = [comm for comm, state in kernel.widget_comms("AnyModel") if "selected" in state]
    table = tables[0] if tables else None
    logs = [comm for comm, state in kernel.widget_comms("HTMLModel") if "select a trial" in state["value"]]
    assert table and logs

    kernel.set_state(table, {"selected": running})  # the user clicks the running trial's row
    wait_until(lambda: any(f"trial {running}" in v for v in kernel.updates(logs[0], "value")), 60, "the log")
    assert _trials(home)[running] == "RUNNING"  # shown while the cell still waits
    stop = kernel.button("Stop")
    wait_until(lambda: False in kernel.updates(stop, "disabled"), message="Stop trial enabled")
    kernel.click(stop)
    wait_until(lambda: _trials(home).get(running) == "STOPPED", message="the trial stopped")
    parallel = [comm for comm, state in kernel.widget_comms("BoundedIntTextModel") if state["max"] == 10_000]
    assert 2 in [dict(kernel.widget_comms("BoundedIntTextModel"))[parallel[0]]["value"],
                 *kernel.updates(parallel[0], "value")]  # workers: 2, parallel not set
    reply = kernel.client.get_shell_msg(timeout=120)
    while reply["parent_header"].get("msg_id") != msg_id:  # the comm messages' replies come first
        reply = kernel.client.get_shell_msg(timeout=120)
    assert reply["content"]["status"] == "ok"
    assert kernel.run("print(waited.state)").strip() == "COMPLETED"

    extend = kernel.button("Extend by")
    assert False in [dict(kernel.widget_comms("ButtonModel"))[extend]["disabled"],
                     *kernel.updates(extend, "disabled")]
    numbers = [comm for comm, state in kernel.widget_comms("BoundedIntTextModel") if state["max"] == 100_000]
    kernel.set_state(numbers[0], {"value": 1})
    kernel.click(extend)  # after the cell ended: the same kernel runs one more trial
    wait_until(lambda: len(_trials(home)) == 3 and _trials(home)[2] == "COMPLETED", 60, "the extended trial")
    assert kernel.run("print(waited.record.budget)").strip() == "3"


def test_a_click_goes_ahead_of_requests_that_wait_for_the_cell(kernel: KernelSession):
    """A front end also sends requests of its own while a cell waits (JupyterLab: history,
    kernel_info); they wait for the cell, and the widget messages after them do not."""
    home = kernel.home  # type: ignore[attr-defined]
    msg_id = kernel.client.execute(CELL.replace("--name waited", "--name ahead --overwrite"))
    wait_until(lambda: "RUNNING" in _states(home, "ahead").values(), message="a running trial")
    kernel.client.kernel_info()  # answered after the cell
    kernel.client.history(hist_access_type="tail", n=1)
    stop = kernel.button("Stop search")
    kernel.click(stop)
    wait_until(lambda: _states(home, "ahead") and "RUNNING" not in _states(home, "ahead").values(),
               message="the search stopped while its cell waits")
    replies = [kernel.client.get_shell_msg(timeout=120)]
    while replies[-1]["parent_header"].get("msg_id") != msg_id:
        replies.append(kernel.client.get_shell_msg(timeout=120))
    assert kernel.run("print(ahead.state)").strip() == "STOPPED"
