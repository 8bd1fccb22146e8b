"""Reopening searches in a real kernel: after a kernel restart, and in a saved notebook."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import hpnb
from hpnb.core.summary import STALE_AFTER
from tests.jupyter.kernel_session import KernelSession
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

OBJECTIVE = """
import time
import hpnb

def train(x, steps=300):
    for step in range(steps):
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(0.01)  # the trial's work
    return {"loss": x}
"""

CELL = """%%hpsearch train --name {name} --trials 4 --parallel 2 {options}
metric: loss
strategy: random
seed: 1
parameters:
  x: {{min: 0.0, max: 1.0}}
  steps: {steps}
resources: {{workers: 2}}
"""


def test_a_search_interrupted_by_a_kernel_restart_shows_and_resumes(tmp_path: Path) -> None:
    kernel = KernelSession(tmp_path)
    try:
        kernel.run("%load_ext hpnb.jupyter\n" + OBJECTIVE)
        kernel.run(CELL.format(name="cut", options="", steps=300))
        wait_until(lambda: kernel.results_stored("cut") >= 4, message="the search reporting")
        kernel.manager.restart_kernel(now=True)
        kernel.client.wait_for_ready(timeout=60)

        kernel.run("%load_ext hpnb.jupyter\n" + OBJECTIVE.replace("steps=300", "steps=3"))
        # the dead kernel's driver stops beating: after three heartbeat intervals it reads INTERRUPTED
        wait_until(lambda: hpnb.load("cut", store=tmp_path / "hpnb.sqlite").state == "INTERRUPTED",
                   20 * STALE_AFTER, "the restarted kernel's search reading INTERRUPTED", interval=0.2)
        kernel.run("d = hpnb.jupyter.show('cut')")
        assert kernel.run("print(d.state)").strip() == "INTERRUPTED"
        assert kernel.run("print(repr(d.controls.resume.layout.display))").strip() == "''"  # visible

        # the objective named in the stored cell (`train`) is taken from this kernel's namespace
        kernel.run(f"d.controls.resume.click(); d.search.wait({patience(120):g})")
        assert kernel.run("print(d.search.state)").strip() == "COMPLETED"
        assert kernel.run("print(len(d.search.results))").strip() == "4"
        text = kernel.run("print(d._repr_mimebundle_()['text/plain'])")
        assert "4/4 trials done" in text
    finally:
        kernel.close()


def test_a_saved_notebook_keeps_a_static_summary_next_to_the_widgets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HPNB_HOME", str(tmp_path))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext hpnb.jupyter\n" + OBJECTIVE),
                nbformat.v4.new_code_cell(CELL.format(name="saved", options="--wait", steps=2))]
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                   ).execute()

    outputs = [out for out in nb.cells[1].outputs if out.get("output_type") == "display_data"]
    assert outputs, nb.cells[1].outputs
    final = outputs[-1]["data"]
    assert "application/vnd.jupyter.widget-view+json" in final
    assert final["text/plain"].splitlines()[:2] == [
        "hpnb search 'saved' (random, minimise loss): COMPLETED",
        "4/4 trials done: 4 completed, 0 failed, 0 stopped, 0 running",
    ]
    assert "<table>" in final["text/html"] and "COMPLETED" in final["text/html"]
