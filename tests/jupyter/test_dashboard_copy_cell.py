""""Copy best as a cell" in a front end that gives widgets no notebook model, in a real kernel.

The button's front end then tells the kernel it could not insert the cell; the kernel adds
it with IPython's ``set_next_input``, which reaches the front end with the reply of the next
cell run (JupyterLab and Notebook insert it below that cell).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.jupyter.kernel_session import KernelSession
from tests.jupyter.test_dashboard_views import write_search

pytestmark = pytest.mark.slow


@pytest.fixture
def kernel(tmp_path: Path):
    write_search(tmp_path / "hpnb.sqlite", trials=5, steps=3, name="copied")
    session = KernelSession(tmp_path)
    session.run("%load_ext hpnb\nimport hpnb")
    yield session
    session.close()


def _not_inserted(kernel: KernelSession, comm_id: str) -> None:
    """What copy_cell.js sends when no notebook model is reachable (ipywidgets 8 custom message)."""
    content = {"comm_id": comm_id, "data": {"method": "custom", "content": {"event": "not-inserted"}}}
    kernel.client.shell_channel.send(kernel.client.session.msg("comm_msg", content))


def _next_inputs(reply: dict) -> list[dict]:
    return [p for p in reply["content"].get("payload", []) if p.get("source") == "set_next_input"]


def test_the_kernel_adds_the_best_cell_when_the_front_end_cannot(kernel: KernelSession) -> None:
    kernel.run("dashboard = hpnb.show('copied', display=True)")
    code = kernel.run("print(dashboard.widgets.copy_best.code, end='')")
    comm_id = kernel.run("print(dashboard.widgets.copy_best.model_id, end='')")
    assert "best_params = {" in code and code.endswith("objective(**best_params)")

    quiet, _ = kernel.execute("1 + 1")  # before any click, no cell is added
    _not_inserted(kernel, comm_id)
    after, _ = kernel.execute("2 + 2")
    later, _ = kernel.execute("3 + 3")

    assert _next_inputs(quiet) == []
    assert _next_inputs(after) == [{"source": "set_next_input", "text": code, "replace": False}]
    assert _next_inputs(later) == []  # added once


def test_a_search_without_a_score_yet_adds_no_cell(kernel: KernelSession, tmp_path: Path) -> None:
    write_search(tmp_path / "hpnb.sqlite", trials=0, steps=1, name="unscored")
    kernel.run("dashboard = hpnb.show('unscored', display=True)")
    comm_id = kernel.run("print(dashboard.widgets.copy_best.model_id, end='')")

    _not_inserted(kernel, comm_id)
    reply, _ = kernel.execute("1 + 1")

    assert _next_inputs(reply) == []
