"""Clicks held across a refresh of the live dashboard of a ``%%hpsearch`` cell, in a real JupyterLab.

A search streams results for minutes on a local cluster of two workers. Each click is pressed,
held until the dashboard has refreshed under the pointer, then released where it was pressed: a
tab pressed while a new tab appears (Curves, once a trial reports a curve), a tab pressed across a
plain refresh, a sort header and a leaderboard row all take the click, and the tab chosen stays
the user's across the refreshes that follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.browser.test_dashboard_e2e import PROGRESS, notebook_page, run_all_cells, wait_until

pytestmark = pytest.mark.slow

NOTEBOOK = "dashboard-clicks.ipynb"
EXPERIMENT = "dashboard-clicks"
#: about 150 s of trials on two workers, far more than the test needs.
TRIALS = 100
VIEWPORT = {"width": 1400, "height": 1500}
#: the file whose presence has the trials report a curve (written by the test while a tab is pressed).
CURVES_FLAG = "report-curves"

OBJECTIVE = '''import math
import os
import time

import hpnb

CURVES_FLAG = {flag!r}


def train(lr, layers):
    """About 3 s a trial; once CURVES_FLAG exists, a loss curve reported every 0.1 s."""
    loss = 1.0
    for step in range(30):
        loss = (math.log10(lr) + 2.5) ** 2 / 4 + 0.05 * layers + 1.0 / (step + 1)
        if os.path.exists(CURVES_FLAG):
            hpnb.report(step=step, val_loss=loss)
        time.sleep(0.1)
    return {{"val_loss": loss}}'''

SEARCH = f"""%%hpsearch train --name {EXPERIMENT} --trials {TRIALS} --parallel 2
metric: val_loss
mode: min
strategy: random
seed: 0
parameters:
  lr: {{distribution: logUniform, min: 1.0e-4, max: 1.0e-1}}
  layers: [1, 2, 3]
resources: {{cluster: local, workers: 2}}"""

#: the leaderboard as shown: a refresh changes it (the running trials' durations, the number of
#: trials), and it is drawn last.
LEADERBOARD = "() => document.querySelector('.jp-OutputArea .hpnb-table').innerText"
#: the plot tabs as shown, and the one marked selected.
TABS = "() => [...document.querySelectorAll('.jp-OutputArea .hpnb-plot-selector .widget-toggle-button')]"
SELECTED_TAB = f"() => ({TABS})().filter(tab => tab.classList.contains('mod-active')).map(t => t.innerText)"
#: whether a node is seen: shown, and not in a hidden panel.
SEEN = "node => node.checkVisibility({visibilityProperty: true})"


@pytest.fixture
def clicks_page(browser, lab_server) -> Iterator[tuple[object, object]]:
    """A Lab page with the search notebook open and its kernel idle; the kernel ends after."""
    objective = OBJECTIVE.format(flag=str(lab_server.root / CURVES_FLAG))
    sources = [objective, "%load_ext hpnb", SEARCH]
    with notebook_page(browser, lab_server, NOTEBOOK, sources, EXPERIMENT, VIEWPORT) as opened:
        yield opened


def press(page, target) -> None:
    """Moves the pointer to the middle of ``target`` and presses the mouse button there."""
    box = target.bounding_box()
    assert box is not None, "the element to press is not shown"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def click_across_a_refresh(page, log, target, what: str) -> None:
    """Presses ``target``, holds the button until the dashboard has refreshed, then releases it."""
    before = page.evaluate(LEADERBOARD)
    press(page, target)
    wait_until(page, log, f"(before) => ({LEADERBOARD})() !== before", arg=before,
               what=f"a refresh while {what} is pressed")
    page.mouse.up()


def tab(dashboard, name: str):
    return dashboard.locator(".hpnb-plot-selector .widget-toggle-button", has_text=re.compile(f"^{name}$"))


def wait_done(page, log, count: int) -> None:
    wait_until(page, log, f"(n) => {{ const p = ({PROGRESS})(); return p && p[0] >= n; }}", arg=count,
               what=f"{count} finished trials")


def _a_tab_pressed_while_a_tab_appears(page, log, dashboard, flag) -> None:
    """Parallel coordinates is pressed; the trials start reporting curves, so the Curves tab appears
    before the release: the pressed tab is selected and drawn, and stays selected."""
    assert page.evaluate(f"() => ({TABS})().map(tab => tab.innerText)") == [
        "History", "Parallel coordinates", "Importance", "Slices", "Contour"]
    press(page, tab(dashboard, "Parallel coordinates"))
    flag.write_text("")
    wait_until(page, log, f"() => ({TABS})().some(tab => tab.innerText === 'Curves')",
               what="the Curves tab to appear while Parallel coordinates is pressed")
    page.mouse.up()
    wait_until(page, log, f"() => ({SELECTED_TAB})()[0] === 'Parallel coordinates'",
               what="Parallel coordinates to be selected")
    wait_until(page, log, f"() => [...document.querySelectorAll('.jp-OutputArea .hpnb-pc')].some({SEEN})",
               what="the parallel coordinates to show")
    done = page.evaluate(PROGRESS)[0]
    wait_done(page, log, done + 3)  # several refreshes later, the user's tab is still the one shown
    assert page.evaluate(SELECTED_TAB) == ["Parallel coordinates"]
    assert dashboard.locator(".hpnb-pc").first.evaluate(SEEN)


def _a_tab_pressed_across_a_refresh(page, log, dashboard) -> None:
    click_across_a_refresh(page, log, tab(dashboard, "Curves"), "the Curves tab")
    wait_until(page, log, f"() => ({SELECTED_TAB})()[0] === 'Curves'", what="Curves to be selected")
    wait_until(page, log, "() => [...document.querySelectorAll('.jp-OutputArea .js-plotly-plot')]"
               f".filter({SEEN}).some(plot => [...plot.querySelectorAll('.scatterlayer path.js-line')]"
               ".some(line => (line.getAttribute('d') || '').includes('L')))", what="a drawn metric curve")


def _a_sort_header_pressed_across_a_refresh(page, log, dashboard) -> None:
    """The table, ranked until now, sorts by trial number."""
    header = dashboard.locator(".hpnb-table th", has_text=re.compile(r"^trial"))
    assert "hpnb-sorted" not in (header.get_attribute("class") or "")
    click_across_a_refresh(page, log, header, "the trial header")
    wait_until(page, log, "() => { const ids = [...document.querySelectorAll("
               "'.jp-OutputArea .hpnb-table tbody tr td:nth-child(2)')].map(cell => Number(cell.innerText));"
               " return ids.length > 3 && ids.every((id, i) => i === 0 || id > ids[i - 1]); }",
               what="the table sorted by trial")
    assert header.inner_text() == "trial \u25b2" and "hpnb-sorted" in header.get_attribute("class")


def _a_row_pressed_across_a_refresh(page, log, dashboard) -> None:
    """A row (its place is fixed: the table is sorted by trial) is selected and its trial's panel opens."""
    row = dashboard.locator(".hpnb-table tbody tr").nth(1)
    trial_id = row.get_attribute("data-trial")
    click_across_a_refresh(page, log, row, f"the row of trial {trial_id}")
    dashboard.locator(f'.hpnb-table tr.hpnb-selected[data-trial="{trial_id}"]').wait_for()
    wait_until(page, log, "(id) => { const panel = document.querySelector('.jp-OutputArea .hpnb-trial-log');"
               " return !!panel && panel.innerText.includes(`trial ${id}`); }", arg=trial_id,
               what=f"the panel of trial {trial_id}")


def test_clicks_held_across_refreshes_of_a_live_dashboard_take_effect(clicks_page, lab_server) -> None:
    page, log = clicks_page
    flag = lab_server.root / CURVES_FLAG
    flag.unlink(missing_ok=True)
    run_all_cells(page, log)
    dashboard = page.locator(".jp-Notebook .jp-CodeCell").nth(2).locator(".jp-OutputArea .widget-vbox").first
    wait_done(page, log, 2)

    _a_tab_pressed_while_a_tab_appears(page, log, dashboard, flag)
    _a_tab_pressed_across_a_refresh(page, log, dashboard)
    _a_sort_header_pressed_across_a_refresh(page, log, dashboard)
    _a_row_pressed_across_a_refresh(page, log, dashboard)

    assert page.evaluate(SELECTED_TAB) == ["Curves"]
    done, budget, _ = page.evaluate(PROGRESS)
    assert done < budget, "the search was still streaming results"
    assert not log.problems(), str(log)
