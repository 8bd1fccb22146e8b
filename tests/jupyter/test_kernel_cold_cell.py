"""The first ``%%hpsearch`` cell of a fresh kernel, in a real kernel: it replies while the local
cluster is still starting, showing its dashboard with the plot still to come; the plot is drawn
after the cell, then the dashboard turns live by itself; a cell run again shows its search
again; a cluster that cannot start fails the search with its error.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.jupyter.kernel_session import KernelSession, hpnb_kernel
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

OBJECTIVE = """
import time
import hpnb

def train(x, steps=40):
    for step in range(steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(0.05)  # the trial's work
    return {"loss": x}
"""

CELL = """%%hpsearch train --name {name} --trials {trials} {options}
metric: loss
seed: 3
parameters:
  x: {{min: 0.0, max: {x_max}}}
  steps: {steps}
resources: {resources}
"""

STARTING = "starting the local cluster (2 workers)"
PLOT = "hpnb.jupyter.dashboard.plot.Plot"
DRAWING = "drawing the plot"


def cell(name: str, trials: int = 4, steps: int = 40, options: str = "", x_max: str = "1.0",
         resources: str = "{workers: 2}") -> str:
    return CELL.format(name=name, trials=trials, steps=steps, options=options, x_max=x_max,
                       resources=resources)


@pytest.fixture
def kernel(tmp_path: Path):
    with hpnb_kernel(tmp_path, OBJECTIVE) as session:
        yield session


def _stored(home: Path, name: str) -> tuple[str, str | None, int]:
    with Store(home / "hpnb.sqlite", readonly=True) as store:
        record = store.experiment(name)
        return record.state, record.message, len(store.trials(record.id))


def _titles(kernel: KernelSession, name: str) -> list[str]:
    """Every value the dashboard's title of search ``name`` showed, in order."""
    for comm_id, state in kernel.widget_comms("HTMLModel"):
        values = [state.get("value", ""), *kernel.updates(comm_id, "value")]
        if any(f"<b>{name}</b>" in value for value in values):
            return values
    raise AssertionError(f"no dashboard title of {name!r} was sent")


def _titles_until(kernel: KernelSession, name: str, text: str, timeout: float = 60.0) -> list[str]:
    """The titles of ``name``'s dashboard once the last one says ``text`` (it redraws by itself)."""

    def shown() -> list[str] | None:
        titles = _titles(kernel, name)
        return titles if text in titles[-1] else None

    return wait_until(shown, timeout, f"the dashboard of {name!r} showing {text!r}", interval=0.2)


def _the_cells_output(kernel: KernelSession, msg_id: str) -> tuple[int, list[int]]:
    """Where, in the order the kernel sent them, the cell's output (its display) and the plot
    widgets are."""
    kernel.drain_iopub()
    shown = next(i for i, msg in enumerate(kernel.iopub) if msg["msg_type"] == "display_data"
                 and msg["parent_header"].get("msg_id") == msg_id)
    plots = [i for i, msg in enumerate(kernel.iopub) if msg["msg_type"] == "comm_open"
             and msg["content"]["data"]["state"].get("_anywidget_id") == PLOT]
    return shown, plots


def _drawn_traces(kernel: KernelSession, markers: int = 0, timeout: float = 60.0) -> list[dict]:
    """The traces of the first plot (the history) once it has ``markers`` trials or more."""

    def drawn() -> list[dict] | None:
        for comm_id, state in kernel.widget_comms("AnyModel"):
            if state.get("_anywidget_id") == PLOT:
                sent = [data for data in (state.get("data"), *kernel.updates(comm_id, "data")) if data]
                if sent and len(sent[-1][0].get("x", [])) >= markers:
                    return sent[-1]
        return None

    return wait_until(drawn, timeout, f"a plot drawn with {markers} trials", interval=0.2)


def test_a_cold_kernels_first_cell_replies_while_its_cluster_starts_then_goes_live(
        kernel: KernelSession, tmp_path: Path) -> None:
    reply, _ = kernel.execute(cell("cold"))  # benchmarks/cold_cell.py times it

    assert reply["content"]["status"] == "ok"
    # the reply came before the cluster was up: the store still says what is being started
    assert _stored(tmp_path, "cold") == ("RUNNING", STARTING, 0)
    listed = kernel.run("t = %hpsearch list\nprint(t.set_index('name').loc['cold', 'state'])")
    assert listed.strip() == "RUNNING"
    # the cell showed its dashboard with the plot's place saying it is being drawn; the plot
    # itself comes after the dashboard, drawn by the dashboard's own thread
    shown, plots = _the_cells_output(kernel, reply["parent_header"]["msg_id"])
    notes = [state["value"] for _, state in kernel.widget_comms("HTMLModel") if DRAWING in state["value"]]
    assert notes and plots and shown < plots[0]

    kernel.run(f"cold.wait({patience(120):g})")
    assert kernel.run("print(cold.state, len(cold.results))").split() == ["COMPLETED", "4"]
    titles = _titles_until(kernel, "cold", "COMPLETED")
    starting = [i for i, title in enumerate(titles) if STARTING in title]
    live = [i for i, title in enumerate(titles) if "RUNNING" in title and STARTING not in title]
    assert starting and live and starting[0] < live[0] < len(titles) - 1  # starting, then live
    assert STARTING not in titles[-1]
    trials, best, mark = _drawn_traces(kernel, markers=4)  # the history shows every trial's score
    assert [trials["name"], best["name"], mark["name"]] == ["trial", "best so far", "selected"]
    assert trials["x"] == [0, 1, 2, 3] and best["y"][-1] == min(trials["y"])


def test_two_cells_share_one_cluster_and_a_rerun_cell_shows_its_search(kernel: KernelSession) -> None:
    for name in ("first", "second"):  # both before the cluster is up
        reply, _ = kernel.execute(cell(name, steps=60))
        assert reply["content"]["status"] == "ok"
    experiment = kernel.run("print(first.experiment_id)")

    rerun_live = kernel.run(cell("first", steps=60))
    assert "'first' runs already with this spec" in rerun_live
    assert kernel.run("print(first.experiment_id)") == experiment

    kernel.run(f"first.wait({patience(120):g}); second.wait({patience(120):g})")
    rerun_done = kernel.run(cell("first", steps=60))
    assert "'first' ran already with this spec (COMPLETED)" in rerun_done
    assert kernel.run("print(first.experiment_id)") == experiment
    trial_ids = kernel.run("print(sorted(first.results['trial_id']))")
    assert trial_ids.strip() == "[0, 1, 2, 3]"  # no trial added or run twice
    # one local cluster of 2 workers ran both searches
    workers = kernel.run("print(len(set(first.results['worker']) | set(second.results['worker'])))")
    assert int(workers) <= 2

    reply, _ = kernel.execute(cell("first", trials=8, steps=60, x_max="2.0"))
    content = reply["content"]
    assert content["status"] == "error"
    assert "trials: 4 → 8, parameters.x.max: 1.0 → 2.0" in content["evalue"]
    assert "--resume" in content["evalue"] and "--overwrite" in content["evalue"]


def test_a_cluster_that_cannot_start_fails_the_search_with_its_error(
        kernel: KernelSession, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"

    reply, _ = kernel.execute(cell("nowhere", resources=f'{{cluster: "{address}"}}'))

    assert reply["content"]["status"] == "ok"
    assert _stored(tmp_path, "nowhere")[:2] == ("RUNNING", f"connecting to the Dask scheduler at {address}")
    kernel.run(f"nowhere.wait({patience(120):g})")
    assert kernel.run("print(nowhere.state)").strip() == "FAILED"
    message = kernel.run("print(nowhere.message)")
    assert f"no Dask scheduler answers at {address}" in message
    assert _stored(tmp_path, "nowhere") == ("FAILED", message.strip(), 0)
    titles = _titles_until(kernel, "nowhere", "FAILED")
    assert "no Dask scheduler answers" in titles[-1]


def test_a_stop_while_the_cluster_starts_ends_the_search_before_any_trial(
        kernel: KernelSession, tmp_path: Path) -> None:
    reply, _ = kernel.execute(cell("halted"))
    assert reply["content"]["status"] == "ok"

    kernel.run("halted.stop()")  # the cluster is still starting: no trial will run

    kernel.run(f"halted.wait({patience(120):g})")
    assert kernel.run("print(halted.state)").strip() == "STOPPED"
    assert _stored(tmp_path, "halted") == ("STOPPED", "stopped by the user", 0)
