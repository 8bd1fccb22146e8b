"""The ``%%hpsearch`` cell in a real kernel: it returns at once, the kernel answers while
results stream in, progress reaches the front end as widget updates, and Stop works as clicked.
"""

from __future__ import annotations

import pytest

from tests.jupyter.kernel_session import KernelSession, hpnb_kernel
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

OBJECTIVE = """
import time
import hpnb

def stream(x, steps=2500):
    for step in range(steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(0.002)  # the trial's work: a report every 2 ms
    return {"loss": x}
"""

CELL = """%%hpsearch stream --name {name} --trials {trials} --parallel 2 {options}
metric: loss
parameters:
  x: {{min: 0.0, max: 1.0}}
  steps: {steps}
resources: {{workers: 2}}
"""


def cell(name: str, trials: int, steps: int = 2500, options: str = "") -> str:
    return CELL.format(name=name, trials=trials, steps=steps, options=options)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory):
    with hpnb_kernel(tmp_path_factory.mktemp("hpnb_home"), OBJECTIVE) as session:
        yield session


def _results_stored(kernel: KernelSession, handle: str) -> int:
    return int(kernel.run(f"print({handle}.store.result_count({handle}.experiment_id))"))


def _wait_for_results(kernel: KernelSession, handle: str, at_least: int, timeout: float = 60.0) -> None:
    wait_until(lambda: _results_stored(kernel, handle) >= at_least, timeout,
               f"{at_least} results of {handle} stored", interval=0.2)


# How fast the kernel answers meanwhile (p99 of `1+1` under 100 ms) is measured by
# benchmarks/kernel_nonblocking.py.
def test_the_cell_returns_at_once_and_the_kernel_answers_while_results_stream(kernel: KernelSession) -> None:
    reply, _ = kernel.execute(cell("latency", trials=4))
    assert reply["content"]["status"] == "ok"
    assert kernel.run("print(latency.state)").strip() == "RUNNING"  # the cell did not wait for it
    _wait_for_results(kernel, "latency", 200)
    before = _results_stored(kernel, "latency")

    def answered_while_500_more_were_stored() -> bool:
        reply, _ = kernel.execute("1+1")
        assert reply["content"]["status"] == "ok"
        kernel.drain_iopub()
        return _results_stored(kernel, "latency") - before > 500

    wait_until(answered_while_500_more_were_stored, 60, "500 more results stored while the kernel answers")
    assert kernel.run("print(latency.state)").strip() == "RUNNING", "the search ended before asking did"
    kernel.run(f"latency.stop(); latency.wait({patience(60):g})")


def test_progress_reaches_the_front_end_as_widget_updates(kernel: KernelSession) -> None:
    kernel.run(cell("progress", trials=6, steps=100, options="--wait"))
    bars = kernel.widget_comms("IntProgressModel")
    assert bars, "no progress bar was opened"
    comm_id, initial = bars[-1]
    values = [initial.get("value", 0), *kernel.updates(comm_id, "value")]
    assert values[-1] == 6
    assert values == sorted(values) and len(set(values)) >= 3  # it moved step by step
    assert kernel.run("print(progress.state)").strip() == "COMPLETED"


def test_a_click_on_stop_stops_the_search(kernel: KernelSession) -> None:
    kernel.run(cell("clicked", trials=20))
    _wait_for_results(kernel, "clicked", 50)
    stops = [(cid, state) for cid, state in kernel.widget_comms("ButtonModel")
             if state.get("description") == "Stop search"]
    comm_id, _ = stops[-1]

    kernel.click(comm_id)

    kernel.run(f"clicked.wait({patience(60):g})")
    assert kernel.run("print(clicked.state)").strip() == "STOPPED"
    done = int(kernel.run("print(len(clicked.results))"))
    assert done < 20
    states = kernel.run("print(sorted(set(clicked.results['state'])))")
    assert "RUNNING" not in states
