"""The cell dashboard of a search with two objectives in a real JupyterLab, driven in headless Chromium.

A notebook runs a real ``%%hpsearch`` cell with ``metrics: {val_loss: min, latency_ms: min}`` on
a local cluster of two workers. Once it has finished, the test reads the header (the Pareto
front, no best value), the Pareto front plot (its front's points and step line are the search's
front, as ``search.pareto`` computes it from the store), clicks a point of the front (its row is
selected in the table and the copy button names it), reads the table's objective and Pareto
rank columns and the parallel coordinates' objective axes, then copies the trial as a cell and
runs it. A screenshot of the Pareto view goes to docs/images.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from hpnb.core.objectives import Objective
from hpnb.core.store import Store
from hpnb.core.summary import pareto_front, pareto_ranks
from tests.browser.test_dashboard_e2e import notebook_page, run_all_cells, wait_until
from tests.browser.test_dashboard_tabs_e2e import SEEN, VIEWPORT, WAIT_MS, _show_tab

pytestmark = pytest.mark.slow

IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "dashboard-pareto.png"
NOTEBOOK = "dashboard-pareto.ipynb"
EXPERIMENT = "dashboard-pareto"
TRIALS = 14
OBJECTIVES = (Objective("val_loss", "min"), Objective("latency_ms", "min"))

OBJECTIVE = '''import time

import hpnb


def train(width, depth):
    """A wider model has a lower loss and a higher latency; a deeper one only costs (deterministic)."""
    loss = 1.0 - width + 0.2 * (depth - 1)
    for step in range(3):
        hpnb.report(step=step, val_loss=loss + 1.0 / (step + 1))
        time.sleep(0.1)
    print(f"width={width:.4f} depth={depth}")
    return {"val_loss": loss, "latency_ms": 10.0 * width + 3.0 * depth}'''

SEARCH = f"""%%hpsearch train --name {EXPERIMENT} --trials {TRIALS} --parallel 2
metrics: {{val_loss: min, latency_ms: min}}
strategy: random
seed: 0
parameters:
  width: {{min: 0.0, max: 1.0}}
  depth: {{type: int, min: 1, max: 3}}
resources: {{cluster: local, workers: 2}}"""

#: the traces of the Pareto plot as plotly.js holds them, once it has drawn them.
PARETO_TRACES = """() => {
    const plot = [...document.querySelectorAll('.jp-OutputArea .js-plotly-plot')].find(""" + SEEN + """);
    if (!plot || !plot.data || !plot._fullLayout) return null;
    const traces = Object.fromEntries(plot.data.map(t => [t.name, {x: t.x, y: t.y, ids: t.customdata || null,
                                                                       text: t.text || null}]));
    return {traces, xtitle: plot._fullLayout.xaxis.title.text, ytitle: plot._fullLayout.yaxis.title.text};
}"""


@pytest.fixture
def pareto_page(browser, lab_server):
    """A Lab page with the two-objective notebook open and its kernel idle; the kernel ends after."""
    sources = [OBJECTIVE, "%load_ext hpnb", SEARCH]
    with notebook_page(browser, lab_server, NOTEBOOK, sources, EXPERIMENT, VIEWPORT, WAIT_MS) as opened:
        yield opened


def _stored(lab_server):
    with Store(lab_server.store.path, readonly=True) as store:
        return store.trials(store.experiment(EXPERIMENT).id)


def _pareto_plot(page, log, points: int) -> dict:
    """The Pareto plot's traces once it shows all ``points`` ranked trials (it redraws a moment
    after the header): the traces that met the condition, as a second read could fall between
    two draws."""
    count = "(name) => (d.traces[name] ? d.traces[name].x.length : 0)"
    return wait_until(page, log, f"() => {{ const d = ({PARETO_TRACES})(); const n = {count}; "
                      f"return d && n('Pareto front') > 0 "
                      f"&& n('Pareto front') + n('other ranks') === {points} ? d : null; }}",
                      what=f"the Pareto front plot of {points} trials")


def _click_point(page, x: float, y: float) -> None:
    """Click where plotly.js drew the point (x, y) of the shown plot (its axes' own conversion)."""
    spot = page.evaluate("""([x, y]) => {
        const plot = [...document.querySelectorAll('.jp-OutputArea .js-plotly-plot')].find(""" + SEEN + """);
        const {xaxis, yaxis} = plot._fullLayout;
        const box = plot.querySelector('.draglayer .nsewdrag').getBoundingClientRect();
        return [box.left + xaxis.l2p(x), box.top + yaxis.l2p(y)];
    }""", [x, y])
    page.mouse.click(*spot)


def test_the_pareto_view_table_and_copied_trial_of_a_two_objective_search(pareto_page, lab_server) -> None:
    page, log = pareto_page
    run_all_cells(page, log)
    dashboard = page.locator(".jp-Notebook .jp-CodeCell").nth(2).locator(".jp-OutputArea .widget-vbox").first
    wait_until(page, log, f"() => [...document.querySelectorAll('.jp-OutputArea .widget-html')]"
               f".some(node => node.innerText.includes('{TRIALS}/{TRIALS} done'))",
               what="the search to finish")
    trials = {t.trial_id: t for t in _stored(lab_server)}
    front = pareto_front(list(trials.values()), OBJECTIVES)
    ranks = pareto_ranks(list(trials.values()), OBJECTIVES)

    # The header names the front; there is no best value.
    size = f"{len(front)} trial" + ("s" if len(front) > 1 else "")
    header = dashboard.locator(".hpnb-front")
    header.filter(has_text=f"Pareto front: {size} (val_loss min, latency_ms min)").wait_for()
    assert "best" not in dashboard.locator(".widget-html").first.inner_text()

    # The Pareto front is the first plot: the front's points and the line through them.
    options = dashboard.locator(".hpnb-plot-selector .widget-toggle-button").all_text_contents()
    assert options[:3] == ["Pareto front", "History", "Curves"]
    drawn = _pareto_plot(page, log, len(ranks))
    points = drawn["traces"]["Pareto front"]
    assert sorted(points["ids"]) == sorted(t.trial_id for t in front)
    assert sorted(points["x"]) == sorted(t.metrics["val_loss"] for t in front)
    line = drawn["traces"]["front of val_loss and latency_ms"]
    assert line["x"] == sorted(t.metrics["val_loss"] for t in front)
    others = drawn["traces"]["other ranks"]
    assert len(others["x"]) == sum(1 for rank in ranks.values() if rank > 0)
    assert (drawn["xtitle"], drawn["ytitle"]) == ("val_loss (min)", "latency_ms (min)")
    assert dashboard.locator(".hpnb-pareto-pair").is_hidden()  # two objectives: no pair to choose

    # A click on a point of the front selects its trial: its row, the plot's circle, the copy button.
    chosen = front[len(front) // 2]
    _click_point(page, chosen.metrics["val_loss"], chosen.metrics["latency_ms"])
    dashboard.locator(f'.hpnb-table tr.hpnb-selected[data-trial="{chosen.trial_id}"]').wait_for()
    circled = f"() => {{ const d = ({PARETO_TRACES})(); return d?.traces.selected?.x.length ? d : null; }}"
    selected = wait_until(page, log, circled, what="the selected trial circled")["traces"]["selected"]
    assert selected["x"] == [chosen.metrics["val_loss"]]
    button = dashboard.locator("button.hpnb-copy-best")
    button.filter(has_text=f"Copy trial {chosen.trial_id} as a cell").wait_for()
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES") or not IMAGE.exists():
        dashboard.screenshot(path=str(IMAGE))

    # The table: a column per objective and the Pareto rank, front first.
    columns = dashboard.locator(".hpnb-table thead th").all_text_contents()
    assert [re.sub(r" [▲▼]$", "", c) for c in columns[:8]] == [
        "rank", "trial", "val_loss", "latency_ms", "Pareto rank", "state", "duration", "started"]
    cells = dashboard.locator(".hpnb-table tbody tr td:nth-child(5)").all_text_contents()
    assert cells[:len(front)] == ["0"] * len(front) and cells == sorted(cells, key=int)
    shown = [int(t) for t in dashboard.locator(".hpnb-table tbody tr").evaluate_all(
        "rows => rows.map(row => row.dataset.trial)")]
    assert all(ranks[t] == int(c) for t, c in zip(shown, cells, strict=True))
    assert set(dashboard.locator(".hpnb-table td.hpnb-state").all_text_contents()) == {"COMPLETED"}

    # Parallel coordinates: an axis per objective.
    _show_tab(page, log, dashboard, "Parallel coordinates", ".jp-OutputArea .hpnb-pc")
    titles = dashboard.locator(".hpnb-pc .hpnb-pc-title").all_text_contents()
    assert sorted(titles) == ["depth", "latency_ms (min)", "val_loss (min)", "width"]
    assert dashboard.locator(".hpnb-pc .hpnb-pc-bartitle").text_content() == "Pareto rank"

    # The selected trial as a new cell; run, it gives that trial's values again.
    button.click()
    wait_until(page, log, "() => document.querySelectorAll('.jp-Notebook .jp-CodeCell').length === 4",
               what="the copied cell")
    copied = page.locator(".jp-Notebook .jp-CodeCell").nth(3)
    source = copied.locator(".cm-content").inner_text()
    assert f"# trial {chosen.trial_id} of '{EXPERIMENT}'" in source and "train(**trial_params)" in source
    copied.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    wait_until(page, log, "() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')[3]"
               ".querySelectorAll('.jp-OutputArea-output')].some(o => o.innerText.includes('latency_ms'))",
               what="the copied cell's output")
    result = copied.locator(".jp-OutputArea-output").last.inner_text()
    assert ast.literal_eval(result.strip()) == {k: chosen.metrics[k] for k in ("val_loss", "latency_ms")}
    assert not log.problems(), str(log)
