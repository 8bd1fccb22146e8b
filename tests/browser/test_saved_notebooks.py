"""Every demo notebook opens in JupyterLab with its saved outputs drawn and zero console errors
(no "widget model not found"): as committed, and the quickstart as JupyterLab saves it after a
run (widget views without the widget state), saved through the server as the Lab saves it."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.browser.conftest import LabServer
from tests.browser.test_dashboard_e2e import PageLog, fresh_page, shut_down_kernels_of, wait_until

pytestmark = pytest.mark.slow

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: the notebook shown drew its outputs, each dashboard's as its summary or as the widget manager's error.
DRAWN = """([outputs, dashboards]) => {
    const shown = [...document.querySelectorAll('.jp-NotebookPanel')].find(p => p.checkVisibility());
    if (!shown) return false;
    const errors = shown.textContent.split('Error displaying widget').length - 1;
    return shown.querySelectorAll('.jp-OutputArea-output').length >= outputs
        && shown.querySelectorAll('.hpnb-static').length + errors >= dashboards;
}"""
#: what the notebook shown says instead of a dashboard's summary.
NO_SUMMARY = """() => [...document.querySelectorAll('.jp-NotebookPanel')].find(p => p.checkVisibility())
    .textContent.split('Error displaying widget').length - 1"""


def _save(server: LabServer, name: str, notebook: dict[str, object]) -> None:
    """Saves ``notebook`` through the contents API, as JupyterLab's Save does."""
    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode()
    request = urllib.request.Request(server.api(f"api/contents/{name}"), data=body, method="PUT",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=30).close()


def _as_lab_saves_it(notebook: dict[str, object]) -> dict[str, object]:
    """The notebook after a run in JupyterLab: each dashboard output also a view of its widget
    model, whose state the Lab does not save (its default), and each code cell trusted (the server
    signs the notebook, so opened again its widget views are rendered). Texts are whole strings,
    as the Lab sends them (the signature is of what is sent)."""
    for index, cell in enumerate(notebook["cells"]):  # type: ignore[union-attr]
        if cell["cell_type"] == "code":
            cell["metadata"]["trusted"] = True
        for output in cell.get("outputs", []):
            if "hpnb-static" in output.get("data", {}).get("text/html", ""):
                output["data"][WIDGET_VIEW] = {"version_major": 2, "version_minor": 0,
                                               "model_id": f"m{index}"}  # fmt: skip
    return notebook


def _open(page, log: PageLog, name: str, outputs: tuple[int, int]) -> list[str]:
    """Opens ``name`` from the file browser until its outputs are drawn and its kernel is idle;
    the console's errors meanwhile."""
    seen = len(log.lines)
    page.locator(".jp-DirListing-item", has_text=name).dblclick()
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=name).wait_for()
    page.locator("#jp-main-statusbar", has_text="| Idle").wait_for()
    wait_until(page, log, DRAWN, arg=outputs, what=f"the outputs of {name}")
    missing = page.evaluate(NO_SUMMARY)
    problems = [line for line in log.lines[seen:] if line.startswith(("console.error", "page error"))]
    return problems + [f"{missing} dashboard(s) drawn as an error"] * bool(missing)


def _outputs(notebook: dict[str, object]) -> tuple[int, int]:
    """How many outputs the notebook has, and how many of them are dashboards."""
    outputs = [o for cell in notebook["cells"] for o in cell.get("outputs", [])]  # type: ignore[union-attr]
    dashboards = sum("hpnb-static" in "".join(o.get("data", {}).get("text/html", "")) for o in outputs)
    return len(outputs), dashboards


def test_every_demo_notebook_opens_with_its_outputs_and_no_console_error(browser, lab_server):
    saved = {path.name: json.loads(path.read_text()) for path in NOTEBOOKS}
    # as the Lab saves the quickstart after a run
    quickstart = nbformat.reads(NOTEBOOKS[0].read_text(), as_version=4)
    saved["saved-after-a-run.ipynb"] = _as_lab_saves_it(quickstart)
    for name, notebook in saved.items():
        _save(lab_server, name, notebook)
    context, page, log = fresh_page(browser, {"width": 1400, "height": 900})
    try:
        page.goto(f"{lab_server.url}/lab/workspaces/saved-notebooks?reset&token={lab_server.token}")
        page.locator(".jp-DirListing-item", has_text=NOTEBOOKS[0].name).wait_for()
        opened = {name: _open(page, log, name, _outputs(notebook)) for name, notebook in saved.items()}
    finally:
        context.close()
        for name in saved:
            shut_down_kernels_of(lab_server, name)
    assert {name: errors for name, errors in opened.items() if errors} == {}
