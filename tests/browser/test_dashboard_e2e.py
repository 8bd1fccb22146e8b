"""The live dashboard of a ``%%hpsearch`` cell in a real JupyterLab, driven in headless Chromium.

A notebook written into the server's root holds an objective, ``%load_ext hpnb`` and a
``%%hpsearch`` cell on a local cluster of two workers; the test runs all cells from the
Run menu, watches the progress grow and the plots being drawn, then clicks Stop.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hpnb.core.store import Store
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.slow

DOC_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "dashboard.png"
NOTEBOOK = "dashboard-e2e.ipynb"
EXPERIMENT = "dashboard-e2e"
#: about 250 s of trials on two workers: the test stops the search long before it ends, even on a
#: machine so busy that the page takes a minute to get there.
TRIALS = 100
#: room for the whole dashboard (header, controls, both plots, leaderboard) in one picture.
VIEWPORT = {"width": 1400, "height": 1500}
WAIT_MS = 60_000

OBJECTIVE = '''import math
import time

import hpnb


def train(lr, layers, steps=50, pause=0.1):
    """A loss curve reported every `pause` seconds (about 5 s per trial)."""
    loss = 1.0
    for step in range(steps):
        loss = (math.log10(lr) + 2.5) ** 2 / 4 + 0.05 * layers + 1.0 / (step + 1)
        hpnb.report(step=step, val_loss=loss)
        time.sleep(pause)
    return {"val_loss": loss}'''

SEARCH = f"""%%hpsearch train --name {EXPERIMENT} --trials {TRIALS} --parallel 2
metric: val_loss
mode: min
strategy: random
seed: 0
parameters:
  lr: {{distribution: logUniform, min: 1.0e-4, max: 1.0e-1}}
  layers: [1, 2, 3]
resources: {{cluster: local, workers: 2}}"""


def write_notebook(path: Path, sources: list[str]) -> None:
    """A notebook of one code cell per source."""
    def cell(cell_id: str, text: str) -> dict[str, object]:
        return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [],
                "source": text.splitlines(keepends=True)}  # fmt: skip

    notebook = {
        "cells": [cell(f"cell-{index}", text) for index, text in enumerate(sources)],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))


def shut_down_kernels_of(lab_server, notebook: str) -> None:
    """Ends the notebook's kernel (and with it the kernel's local Dask cluster)."""
    with urllib.request.urlopen(lab_server.api("api/sessions"), timeout=10) as answer:
        sessions = json.load(answer)
    for session in sessions:
        if session.get("path") == notebook:
            request = urllib.request.Request(lab_server.api(f"api/sessions/{session['id']}"), method="DELETE")
            urllib.request.urlopen(request, timeout=30).close()


class PageLog:
    """Console messages and uncaught errors of a page, to explain a failed wait."""

    def __init__(self, page) -> None:
        self.lines: list[str] = []
        page.on("console", lambda message: self.lines.append(f"console.{message.type}: {message.text}"))
        page.on("pageerror", lambda error: self.lines.append(f"page error: {error}"))

    def problems(self) -> list[str]:
        return [line for line in self.lines if line.startswith(("console.error", "page error"))]

    def __str__(self) -> str:
        return "browser console:\n" + ("\n".join(self.lines[-80:]) or "(nothing)")


def fresh_page(browser, viewport: dict[str, int]) -> tuple[object, object, PageLog]:
    """A new browser context and page (timeouts of a minute) and the log of its console."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(60_000)
    page = context.new_page()
    return context, page, PageLog(page)


@contextlib.contextmanager
def notebook_page(browser, lab_server, notebook: str, sources: list[str], workspace: str,
                  viewport: dict[str, int], timeout_ms: int = WAIT_MS,
                  init_script: str | None = None) -> Iterator[tuple[object, PageLog]]:
    """A fresh Lab page with a notebook of ``sources`` open and its kernel idle; the kernel ends after.
    ``init_script`` runs in the page before the Lab's own code."""
    write_notebook(lab_server.root / notebook, sources)
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(timeout_ms)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    log = PageLog(page)
    try:
        # A workspace of its own: Lab saves the open tabs per workspace, and the other tests' page
        # (the default workspace) must not reopen this notebook, nor this page theirs.
        page.goto(f"{lab_server.url}/lab/workspaces/{workspace}/tree/{notebook}?token={lab_server.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-line")
        # The status bar reads "Idle" once the kernel is connected; a Run All sent earlier was seen to
        # leave every cell unrun.
        page.locator("#jp-main-statusbar", has_text="| Idle").wait_for()
        yield page, log
    finally:
        context.close()
        shut_down_kernels_of(lab_server, notebook)


@pytest.fixture
def dashboard_page(browser, lab_server) -> Iterator[tuple[object, PageLog]]:
    """A fresh Lab page with the search notebook open and its kernel idle."""
    sources = [OBJECTIVE, "%load_ext hpnb", SEARCH]
    with notebook_page(browser, lab_server, NOTEBOOK, sources, EXPERIMENT, VIEWPORT) as opened:
        yield opened


#: the first cell runs or ran (its count is 2 or more when a Run All sent while the kernel connected
#: went through after all, before the one sent again)
STARTED = "() => /\\[(\\*|\\d+)\\]/.test(document.querySelector('.jp-InputPrompt').innerText)"
#: the index of the first cell that has not run nor waits to (-1 when every cell has)
NOT_RUN = ("() => [...document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputPrompt')]"
           ".findIndex(prompt => !/\\[(\\*|\\d+)\\]/.test(prompt.innerText))")


def run_all_cells(page, log: PageLog) -> None:
    """Run All from the Run menu; sent again if no cell started (a Run All sent while the kernel
    connects is lost), and the cells after the first run again if only the first one went through
    (what a kernel that was still connecting can do)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(3):
        _menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function(STARTED, timeout=15_000)
            break
        except PlaywrightTimeout:
            continue
    wait_until(page, log, STARTED, what="the first cell to run")
    try:
        page.wait_for_function(f"() => ({NOT_RUN})() < 0", timeout=10_000)
    except PlaywrightTimeout:
        first = page.evaluate(f"({NOT_RUN})()")
        page.locator(".jp-Notebook .jp-Cell").nth(first).locator(".jp-InputPrompt").click()
        _menu(page, "Run", "Run Selected Cell and All Below")
    wait_until(page, log, f"() => ({NOT_RUN})() < 0", what="every cell to run or wait to")


def _menu(page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{item}$")).click()


def wait_until(page, log: PageLog, script: str, arg: object = None, what: str = "") -> Any:
    """Waits for a JavaScript condition and returns the value that met it (a plot may be redrawn
    right after: read again, it could be between two states); on a timeout, fails with the
    browser's console."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(script, arg=arg, timeout=WAIT_MS).json_value()
    except PlaywrightTimeout:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard-failure.png"))
        pytest.fail(f"timed out waiting for {what} (see dashboard-failure.png)\n{log}")


#: (finished, budget, progress bar width in %) of the dashboard in the page, or null before it shows.
PROGRESS = """() => {
    const bar = document.querySelector('.jp-OutputArea .widget-hprogress .progress-bar');
    const counts = [...document.querySelectorAll('.jp-OutputArea .widget-html')]
        .map(node => node.innerText.match(/(\\d+)\\/(\\d+) done/)).find(match => match);
    if (!bar || !counts) return null;
    return [Number(counts[1]), Number(counts[2]), parseFloat(bar.style.width) || 0];
}"""


def progress(page) -> tuple[int, int, float]:
    found = page.evaluate(PROGRESS)
    assert found is not None, "the dashboard shows no progress"
    return found[0], found[1], found[2]


def test_live_dashboard_of_an_hpsearch_cell_streams_and_stops(
    dashboard_page, lab_server, save_screenshot
) -> None:
    page, log = dashboard_page
    run_all_cells(page, log)
    dashboard = page.locator(".jp-Notebook .jp-CodeCell").nth(2).locator(".jp-OutputArea .widget-vbox").first
    # the count and the bar are two widgets, updated by two messages: read them once they agree
    agree = "Math.abs(p[2] - 100 * p[0] / p[1]) < 0.5"
    wait_until(page, log, f"() => {{ const p = ({PROGRESS})(); return p && p[0] > 0 && {agree}; }}",
               what="the first finished trial in the dashboard")
    done, budget, width = progress(page)
    assert budget == TRIALS and width > 0
    wait_until(page, log, f"(n) => {{ const p = ({PROGRESS})(); return p && p[0] > n && {agree}; }}",
               arg=done, what="the progress to advance")
    later_done, _, later_width = progress(page)
    assert done < later_done < TRIALS and width < later_width < 100

    header = dashboard.locator(".widget-html", has_text=f"{EXPERIMENT} · random · min val_loss").first
    assert header.locator("span", has_text="RUNNING").count() == 1
    dashboard.locator(".widget-toggle-button", has_text=re.compile("^Curves$")).click()
    curves = dashboard.locator(".js-plotly-plot:visible", has=page.locator(".scatterlayer"))
    wait_until(page, log, "() => [...document.querySelectorAll('.jp-OutputArea .scatterlayer path.js-line')]"
               ".some(line => (line.getAttribute('d') || '').includes('L'))", what="a drawn metric curve")
    assert curves.locator("text.xtitle").text_content() == "step"
    dashboard.locator(".widget-toggle-button", has_text=re.compile("^Parallel coordinates$")).click()
    parcoords = dashboard.locator(".hpnb-pc")
    parcoords.locator(".hpnb-pc-title").nth(2).wait_for()
    axes = sorted(parcoords.locator(".hpnb-pc-title").all_text_contents())
    assert axes == ["layers", "lr (log)", "val_loss"]
    dashboard.locator(".widget-toggle-button", has_text=re.compile("^Curves$")).click()

    save_screenshot(page, "dashboard-live")
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES") or not DOC_IMAGE.exists():
        DOC_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        dashboard.screenshot(path=str(DOC_IMAGE))

    dashboard.locator("button", has_text="Stop search").click()
    wait_until(page, log, f"() => [...document.querySelectorAll('.jp-OutputArea .widget-html')].some(node => "
               f"node.innerText.includes('{EXPERIMENT}') && / STOPPED\\b/.test(node.innerText))",
               what="the dashboard header to read STOPPED")
    dashboard.locator("button:disabled", has_text="Stop search").wait_for()
    save_screenshot(page, "dashboard-stopped")
    with Store(lab_server.store.path, readonly=True) as store:
        experiment = store.experiment(EXPERIMENT)
        trials = store.trials(experiment.id)
    assert experiment.state == "STOPPED"
    states = [t.state for t in trials]
    assert states.count("COMPLETED") < TRIALS
    # Trials queued but never started stay PENDING (a resume runs them); none is left running.
    assert set(states) <= {"COMPLETED", "STOPPED", "PENDING"}
    assert not log.problems(), str(log)
