"""The dashboard as a newcomer meets it, in JupyterLab and in Notebook 7 (headless Chromium): a
``--wait`` search cell as the demo notebooks run it. While the cell waits, a click on a running
trial's row shows its log and Stop stops it; after the cell ended, Extend by runs more trials in
the same kernel. Every plot tab draws; no control label is cut at 800, 1,000 or 1,400 px; the
history's metric axis spans its data. Saved and opened again, the notebook shows the search's
summary with no console error.

One server per front end for the module (the slow part); each test opens its own notebook.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.browser.conftest import ARTIFACTS, LabServer, _quiet_lab_settings, _wait_until_up, end_process
from tests.browser.test_dashboard_e2e import (
    PageLog,
    fresh_page,
    run_all_cells,
    shut_down_kernels_of,
    wait_until,
    write_notebook,
)
from tests.runner.processes import free_port
from tests.waiting import wait_until as wait_for

pytestmark = pytest.mark.slow

OBJECTIVE = '''import time

import hpnb


def train(x, steps=3000):
    print(f"training with x={x:.3f}")
    for step in range(steps):
        hpnb.report(step=step, accuracy=0.9 + 0.05 * x * step / steps)
        time.sleep(0.1)
    return {"accuracy": 0.9 + 0.05 * x}'''

SEARCH = """%%hpsearch train --name {name} --trials 3 --wait
metric: accuracy
mode: max
seed: 0
parameters:
  x: {{min: 0.0, max: 1.0}}
resources: {{cluster: local, workers: 2}}"""

WIDTHS = (800, 1000, 1400)
#: errors of the client itself, on any page: Notebook 7.6 reports this one opening a notebook of
#: one plain cell too (its settings loader, notebook_core.js).
CLIENTS_OWN = ("Cannot read properties of undefined (reading 'schema')",)
#: the notebook toolbar's kernel indicator once the kernel is idle (JupyterLab and Notebook 7).
IDLE = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'
IDLE_NOW = f"() => !!document.querySelector('{IDLE}') || /\\| Idle/.test(document.body.innerText)"


@dataclass(frozen=True)
class Server:
    """A Jupyter server of one front end: where it is, its root, its HPNB_HOME and the path of its
    notebook pages (``lab/tree`` or ``notebooks``)."""

    url: str
    token: str
    root: Path
    home: Path
    notebook_path: str
    api = LabServer.api


def _start(kind: str, base: Path) -> tuple[subprocess.Popen[bytes], Server, Path]:
    root, home = base / "root", base / "hpnb-home"
    root.mkdir()
    home.mkdir()
    _quiet_lab_settings(base / "settings")
    token, port = secrets.token_hex(16), free_port()
    env = dict(os.environ, HPNB_HOME=str(home), JUPYTER_CONFIG_DIR=str(base / "config"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"))
    module = "jupyterlab" if kind == "lab" else "notebook"
    command = [sys.executable, "-m", module, "--no-browser", "--allow-root", "--ip=127.0.0.1",
               f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}"]
    log = base / f"{kind}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    return process, Server(url, token, root, home, "lab/tree" if kind == "lab" else "notebooks"), log


@pytest.fixture(scope="module", params=["lab", "notebook7"])
def server(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if request.param == "notebook7":
        pytest.importorskip("notebook", minversion="7", reason="Notebook 7 is in the test extra")
    process, found, log = _start(request.param, tmp_path_factory.mktemp(request.param))
    try:
        _wait_until_up(f"{found.url}/api/status?token={found.token}", process, log)
        yield found
    finally:
        end_process(process)


def _open(browser, server: Server, name: str, width: int) -> tuple[object, object, PageLog]:
    write_notebook(server.root / f"{name}.ipynb", [OBJECTIVE, "%load_ext hpnb", SEARCH.format(name=name)])
    _start_kernel(server, f"{name}.ipynb")
    context, page, log = fresh_page(browser, {"width": width, "height": 1400})
    page.add_locator_handler(page.locator(".jp-Dialog .jp-mod-accept"), _answer_dialog, no_wait_after=True)
    page.goto(f"{server.url}/{server.notebook_path}/{name}.ipynb?token={server.token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-line")
    wait_until(page, log, IDLE_NOW, what="the kernel to be idle")
    return context, page, log


def _start_kernel(server: Server, notebook: str) -> None:
    """The notebook's kernel, started through the server's sessions API before the page opens: the
    page connects to it instead of starting one. A start that a loaded machine makes slow would
    otherwise have the page ask for a kernel again, and a second kernel take over the cells
    half-way through Run All. (The page then waits for this kernel to be idle.)"""
    body = {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": "python3"}}
    request = urllib.request.Request(server.api("api/sessions"), data=json.dumps(body).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=180) as answer:
        assert json.load(answer)["kernel"]["id"], "the server started no kernel"


def _answer_dialog(button) -> None:
    """Answer a "Select Kernel" dialog the client raised (when a kernel start took long on a busy
    machine). JupyterLab labels its reject button "Cancel" when the notebook has a kernel already:
    that one is kept (a new kernel would cut the cells running on it); without a kernel the
    default one is accepted. One still open after that is dismissed. Its text is printed: pytest
    shows it with a failure."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    dialog = button.page.locator(".jp-Dialog").first
    text = dialog.inner_text(timeout=5_000)
    print("a dialog:", " | ".join(text.split("\n")))
    reject = dialog.locator(".jp-mod-reject").first
    has_kernel = ("Select Kernel" in text and reject.count() > 0
                  and reject.inner_text(timeout=5_000).strip() == "Cancel")
    # the kernel the test started for this notebook, listed as "NAME.ipynb (id)": a new one would
    # take over the cells half-way through
    running = [label for label in dialog.locator("select option").all_inner_texts() if ".ipynb (" in label]
    if running and not has_kernel:
        dialog.locator("select").first.select_option(label=running[0], timeout=10_000)
    (reject if has_kernel else button).click(timeout=10_000)
    print("kept the running kernel" if has_kernel else f"chose {running[0]}" if running
          else "accepted the default kernel")
    try:
        dialog.wait_for(state="hidden", timeout=5_000)
    except PlaywrightTimeout:
        print("it stayed open after its answer: dismissed with Escape")
        button.page.keyboard.press("Escape")


def _other_running(page, log: PageLog, trial: int) -> int:
    """Another trial than ``trial`` that the table shows running (once the second worker runs one)."""
    ids = wait_until(page, log, "() => { const ids = [...document.querySelectorAll('.hpnb-table tbody tr')]"
                     ".filter(row => row.innerText.includes('RUNNING')).map(row => Number(row.dataset.trial))"
                     f".filter(id => id !== {trial}); return ids.length ? ids : null; }}",
                     what=f"a running trial other than {trial}")
    return int(ids[0])


def _trials(home: Path, name: str) -> dict[int, str]:
    path = home / "hpnb.sqlite"
    if not path.exists():
        return {}
    with Store(path, readonly=True) as store:
        found = store.find_experiment(name)
        return {t.trial_id: t.state for t in store.trials(found.id)} if found else {}


TRUNCATED = """() => [...document.querySelectorAll('.hpnb-controls button')]
    .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1).map(b => b.innerText)"""

#: the history plot's y range and the scores it draws, or null before it is drawn.
HISTORY_RANGE = """() => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.offsetParent !== null
        && p._fullLayout && p.data && p.data.length && p.data[0].name === 'trial');
    if (!plot) return null;
    return {range: plot._fullLayout.yaxis.range, y: plot.data[0].y.filter(v => v !== null)};
}"""


PLOTS = ".js-plotly-plot .main-svg, .hpnb-pc svg"
DRAWN = "node => node.getBoundingClientRect().height > 50 && node.offsetParent !== null"


def _labels_fit(page, log: PageLog) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1400})
        page.wait_for_timeout(300)  # the layout settles after the resize
        assert page.evaluate(TRUNCATED) == [], f"labels cut at {width} px"


def _every_tab_draws(page, log: PageLog, dashboard) -> None:
    tabs = dashboard.locator(".hpnb-plot-selector .widget-toggle-button")
    for index in range(tabs.count()):
        tabs.nth(index).click()
        wait_until(page, log, f"() => [...document.querySelectorAll('{PLOTS}')].some({DRAWN})",
                   what=f"tab {tabs.nth(index).inner_text()} to draw")


def _stop_search(page, log: PageLog, dashboard, state: str) -> None:
    page.wait_for_function("(b) => !b.disabled", arg=dashboard.locator("button", has_text="Stop search")
                           .element_handle())
    dashboard.locator("button", has_text="Stop search").click()
    ended = f"node => /\\b{state}\\b/.test(node.innerText) && node.innerText.includes('newcomer')"
    wait_until(page, log, f"() => [...document.querySelectorAll('.widget-html')].some({ended})",
               what=f"the search to read {state}")


def test_the_controls_of_a_waiting_cell_act_and_the_finished_search_extends(browser, server: Server) -> None:
    name = "newcomer"
    context, page, log = _open(browser, server, name, 1400)
    try:
        run_all_cells(page, log)
        dashboard = page.locator(".jp-CodeCell").nth(2).locator(".jp-OutputArea .widget-vbox").first
        wait_until(page, log, "() => [...document.querySelectorAll('.hpnb-table tbody tr')]"
                   ".some(row => row.innerText.includes('RUNNING'))", what="a running trial in the table")
        first = dashboard.locator(".hpnb-table tbody tr", has_text="RUNNING").first
        trial = int(first.get_attribute("data-trial"))
        # the row by its trial: the table re-sorts as scores come, and ".first" would be looked up
        # again at the click (the other running trial may be first by then)
        dashboard.locator(f'.hpnb-table tbody tr[data-trial="{trial}"]').click()
        # the log panel names the trial and its state (what it printed is kept when it ends)
        shown = ("[...document.querySelectorAll('.widget-html')]"
                 f".some(n => /trial {trial} \\W+ RUNNING/.test(n.innerText))")
        waiting = "/\\*/.test(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')[2].innerText)"
        wait_until(page, log, f"() => !({waiting}) || ({shown})", what="the log or the cell's end")
        assert page.evaluate(f"() => {waiting}"), "the log came only after the cell ended"
        # every later click too: the front end sends a widget's next change only once the kernel
        # said it handled the last one, which a waiting cell must say as an idle kernel does
        for other in (_other_running(page, log, trial), trial):
            dashboard.locator(f'.hpnb-table tbody tr[data-trial="{other}"]').click()
            shown = ("[...document.querySelectorAll('.widget-html')]"
                     f".some(n => /trial {other} \\W+ RUNNING/.test(n.innerText))")
            wait_until(page, log, f"() => !({waiting}) || ({shown})", what=f"the log of trial {other}")
            assert page.evaluate(f"() => {waiting}"), "the log came only after the cell ended"
        stop = dashboard.locator(".hpnb-controls button", has_text=re.compile(r"^\s*Stop\s*$"))
        page.wait_for_function("(b) => !b.disabled", arg=stop.element_handle())
        stop.click()
        stopped = f"() => [...document.querySelectorAll('.hpnb-table tbody tr[data-trial=\"{trial}\"]')]"
        wait_until(page, log, stopped + ".some(row => row.innerText.includes('STOPPED'))",
                   what="the stopped trial")
        _labels_fit(page, log)
        _stop_search(page, log, dashboard, "STOPPED")  # the cell ends
        dashboard = page.locator(".jp-CodeCell").nth(2).locator(".jp-OutputArea .widget-vbox").first
        extend = dashboard.locator(".hpnb-controls button", has_text="Extend by")
        page.wait_for_function("(b) => !b.disabled", arg=extend.element_handle())
        numbers = dashboard.locator(".hpnb-controls input[type=number]")
        numbers.first.fill("1")
        numbers.first.press("Enter")
        assert numbers.nth(1).input_value() == "2"  # Set parallel shows the two workers in use
        extend.click()  # after the cell ended: the same kernel runs it again
        wait_until(page, log, "() => /\\d+\\/4 done/.test(document.body.innerText)", what="the budget of 4")
        wait_until(page, log, "() => [...document.querySelectorAll('.hpnb-table tbody tr')]"
                   ".some(row => row.innerText.includes('RUNNING'))", what="a trial running again")
        _stop_search(page, log, dashboard, "STOPPED")
        assert "RUNNING" not in _trials(server.home, name).values()
        _every_tab_draws(page, log, dashboard)
        dashboard.locator(".hpnb-plot-selector .widget-toggle-button", has_text="History").click()
        # "by trial number / by end time": a small segmented control, not a second row of tabs
        sizes = "bs => bs.map(b => [b.offsetHeight, getComputedStyle(b).borderTopLeftRadius])"
        order = dashboard.locator(".hpnb-history-order .widget-toggle-button").evaluate_all(sizes)
        tab = dashboard.locator(".hpnb-plot-selector .widget-toggle-button").first.evaluate_all(sizes)[0]
        assert [height < tab[0] for height, _ in order] == [True, True] and order[0][1] == "11px"
        drawn = wait_until(page, log, f"() => ({HISTORY_RANGE})()", what="the history plot")
        low, high = drawn["range"]
        span = max(drawn["y"]) - min(drawn["y"])
        assert low <= min(drawn["y"]) and high >= max(drawn["y"]) and high <= 1.0
        assert (high - low) - span <= max(0.2 * span, 0.05)  # not 0-1.8 around accuracies near 0.95
        errors = [line for line in log.problems() if "hpnb" in line or "model not found" in line]
        assert not errors, str(log)
        page.keyboard.press("Control+s")  # saved as the client saves it, then opened again
        saved = server.root / f"{name}.ipynb"
        wait_for(lambda: "hpnb-static" in saved.read_text(), 30, interval=0.2)
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"dashboard-{server.notebook_path.replace('/', '-')}.png"))
        context.close()
        shut_down_kernels_of(server, f"{name}.ipynb")
    assert _reopened(browser, server, name) == []


def _reopened(browser, server: Server, name: str) -> list[str]:
    """Opens the saved notebook in a new page (a new kernel): its dashboard shows the search's
    summary; the console's errors."""
    context, page, log = fresh_page(browser, {"width": 1400, "height": 900})
    try:
        page.goto(f"{server.url}/{server.notebook_path}/{name}.ipynb?token={server.token}")
        wait_until(page, log, IDLE_NOW, what="the kernel of the saved notebook")
        page.locator(".jp-CodeCell").nth(2).locator(".hpnb-static").wait_for()
        page.wait_for_timeout(2500)  # the widget manager reports a missing model after 2 s
        return [line for line in log.problems() if not line.endswith(CLIENTS_OWN)]
    finally:
        context.close()
        shut_down_kernels_of(server, f"{name}.ipynb")
