"""The cell dashboard's tabs, table, trial log and "Copy best as a cell" in a real JupyterLab.

A notebook runs a real search of a deterministic objective that prints, on a local cluster of
two workers. Once it has finished, the test walks the plots (History, Parallel coordinates,
Importance, Slices, Contour), sorts the table by a column both ways, selects a row and reads
its log, then copies the best configuration as a cell and runs it: it prints the best trial's
value again. Screenshots of the importance view and of the trial log go to docs/images.

Another notebook shows two stored searches: a large one (its history by end time, its table's
pages, a selected trial in the curves and the parallel coordinates) and a population-based
one (its lineage).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.browser.parallel_coordinates import assert_marked, wait_drawn
from tests.browser.stored_searches import write_stored_searches
from tests.browser.test_dashboard_e2e import notebook_page, run_all_cells, wait_until

pytestmark = pytest.mark.slow

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
NOTEBOOK = "dashboard-tabs.ipynb"
EXPERIMENT = "dashboard-tabs"
TRIALS = 12
VIEWPORT = {"width": 1300, "height": 1600}
WAIT_MS = 90_000

OBJECTIVE = '''import time


def train(x, layers, opt):
    """Deterministic: the same parameters give the same value, bit for bit."""
    print(f"training with x={x:.4f}, layers={layers}, opt={opt}")
    time.sleep(0.2)
    return (x - 0.3) ** 2 + 0.1 * layers + (0.05 if opt == "sgd" else 0.0)'''

SEARCH = f"""%%hpsearch train --name {EXPERIMENT} --trials {TRIALS} --parallel 2
metric: loss
mode: min
strategy: random
seed: 0
parameters:
  x: {{min: 0.0, max: 1.0}}
  layers: {{type: int, min: 1, max: 4}}
  opt: [sgd, adam]
resources: {{cluster: local, workers: 2}}"""


@pytest.fixture
def tabs_page(browser, lab_server):
    """A Lab page with the search notebook open and its kernel idle; the kernel ends after."""
    sources = [OBJECTIVE, "%load_ext hpnb", SEARCH]
    with notebook_page(browser, lab_server, NOTEBOOK, sources, EXPERIMENT, VIEWPORT, WAIT_MS) as opened:
        yield opened


#: whether the table's x column (the 7th) is sorted in direction ``sign`` (1 up, -1 down).
SORTED_BY_X = """(sign) => {
    const values = [...document.querySelectorAll('.hpnb-table tbody tr td:nth-child(7)')]
        .map(cell => Number(cell.innerText));
    return values.length > 3 && values.every((v, i) => i === 0 || sign * (v - values[i - 1]) >= 0);
}"""


#: whether a node is seen: shown, and not in a hidden panel (those keep their place, invisible).
SEEN = "node => node.checkVisibility({visibilityProperty: true})"


def _column(dashboard, index: int) -> list[str]:
    return dashboard.locator(f".hpnb-table tbody tr td:nth-child({index + 1})").all_text_contents()


def _show_tab(page, log, dashboard, name: str, ready: str) -> None:
    dashboard.locator(".hpnb-plot-selector .widget-toggle-button", has_text=re.compile(f"^{name}$")).click()
    wait_until(page, log, f"(selector) => [...document.querySelectorAll(selector)].some({SEEN})", arg=ready,
               what=f"the {name} plot")


def test_tabs_table_log_and_copied_cell(tabs_page, lab_server) -> None:
    page, log = tabs_page
    run_all_cells(page, log)
    search_cell = page.locator(".jp-Notebook .jp-CodeCell").nth(2)
    dashboard = search_cell.locator(".jp-OutputArea .widget-vbox").first
    wait_until(page, log, f"() => [...document.querySelectorAll('.jp-OutputArea .widget-html')]"
               f".some(node => node.innerText.includes('{TRIALS}/{TRIALS} done'))",
               what="the search to finish")
    with Store(lab_server.store.path, readonly=True) as store:
        experiment = store.experiment(EXPERIMENT)
        trials = {t.trial_id: t for t in store.trials(experiment.id)}
    best = min((t for t in trials.values() if t.value is not None), key=lambda t: (t.value, t.trial_id))

    # The history is there first; every plot of the selector draws when shown.
    options = dashboard.locator(".hpnb-plot-selector .widget-toggle-button").all_text_contents()
    assert options == ["History", "Parallel coordinates", "Importance", "Slices", "Contour"]
    dashboard.locator(".scatterlayer .point").first.wait_for()
    _show_tab(page, log, dashboard, "Parallel coordinates", ".jp-OutputArea .hpnb-pc")
    titles = sorted(dashboard.locator(".hpnb-pc .hpnb-pc-title").all_text_contents())
    assert titles == ["layers", "loss", "opt", "x"]
    ticks = '.hpnb-pc g.hpnb-pc-axis[data-label="layers"] .hpnb-pc-ticktext'
    # the plot is drawn again once the finished search's last values arrive: wait for its ticks
    wait_until(page, log, f"() => document.querySelectorAll('.jp-OutputArea {ticks}').length >= 4",
               what="the layers axis' ticks")
    layer_ticks = dashboard.locator(ticks)
    assert layer_ticks.all_text_contents() == ["1", "2", "3", "4"]
    _show_tab(page, log, dashboard, "Importance", ".jp-OutputArea .barlayer .point")
    bars = dashboard.locator(".barlayer .point")
    assert bars.count() == 3
    # drawn at the width of its place, not at plotly's default 700 px
    plot = dashboard.locator(".js-plotly-plot:visible")
    wait_until(page, log, "() => [...document.querySelectorAll('.jp-OutputArea .js-plotly-plot')]"
               f".filter({SEEN}).every(n => Math.abs(n.querySelector('.main-svg')"
               ".getBoundingClientRect().width - n.getBoundingClientRect().width) < 2)",
               what="the plot to fill its width")
    assert plot.bounding_box()["width"] > 750
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES") or not (IMAGES / "dashboard-importance.png").exists():
        dashboard.screenshot(path=str(IMAGES / "dashboard-importance.png"))
    _show_tab(page, log, dashboard, "Slices", ".jp-OutputArea .scatterlayer .point")
    _show_tab(page, log, dashboard, "Contour", ".jp-OutputArea .contourlayer")

    # The table sorts by a parameter, both ways (the kernel sends each sorted page).
    header = dashboard.locator(".hpnb-table th", has_text=re.compile(r"^x"))
    header.click()
    wait_until(page, log, SORTED_BY_X, arg=1, what="the table sorted by x")
    ascending = [float(v) for v in _column(dashboard, 6)]
    assert ascending == sorted(ascending) and len(ascending) > 3
    header.click()
    wait_until(page, log, SORTED_BY_X, arg=-1, what="the table sorted by x, descending")
    assert [float(v) for v in _column(dashboard, 6)] == sorted(ascending, reverse=True)

    # Selecting a row shows what that trial printed, where it ran and its peak memory.
    row = dashboard.locator(".hpnb-table tbody tr").nth(2)
    trial_id = int(row.get_attribute("data-trial"))
    row.click()
    panel = dashboard.locator(".hpnb-trial-log")
    panel.wait_for()
    x = trials[trial_id].params["x"]
    wait_until(page, log, "(text) => document.querySelector('.hpnb-trial-log').innerText.includes(text)",
               arg=f"training with x={x:.4f}", what="the selected trial's stdout")
    # the panel is redrawn when its trial changes (a late refresh of the view): read it once whole
    wait_until(page, log, "(text) => document.querySelector('.hpnb-trial-log').innerText.includes(text)",
               arg=f"trial {trial_id}", what="the selected trial's header")
    text = panel.inner_text()
    assert f"trial {trial_id}" in text and "COMPLETED" in text
    assert re.search(r"worker tcp://127\.0\.0\.1:\d+", text) and re.search(r"peak memory \d+\.\d MiB", text)
    assert dashboard.locator(".hpnb-table tr.hpnb-selected").get_attribute("data-trial") == str(trial_id)
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES") or not (IMAGES / "dashboard-trial-log.png").exists():
        dashboard.locator(".hpnb-trials").screenshot(path=str(IMAGES / "dashboard-trial-log.png"))

    # The best configuration as a new cell below the dashboard's; run, it gives the best value again.
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    assert cells.count() == 3
    dashboard.locator("button.hpnb-copy-best").click()
    wait_until(page, log, "() => document.querySelectorAll('.jp-Notebook .jp-CodeCell').length === 4",
               what="the copied cell")
    copied = cells.nth(3)
    source = copied.locator(".cm-content").inner_text()
    assert f"trial {best.trial_id}" in source and "train(**best_params)" in source
    copied.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    # the trial's print comes first: wait for the cell's result itself
    result = ".jp-OutputArea-executeResult .jp-OutputArea-output"
    wait_until(page, log, "(result) => document.querySelectorAll('.jp-Notebook .jp-CodeCell')[3]"
               ".querySelector(result) !== null", arg=result, what="the copied cell's result")
    assert float(copied.locator(result).inner_text().strip()) == best.value
    assert not log.problems(), str(log)


STORED_NOTEBOOK = "dashboard-stored.ipynb"

#: the traces (as given to plotly) and axes (as drawn) of the plot shown in the dashboard of
#: output ``index`` (0-based among the outputs).
SHOWN_TRACES = """([index]) => {
    const output = document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-OutputArea')[index];
    const plot = [...output.querySelectorAll('.js-plotly-plot')].find(""" + SEEN + """);
    if (!plot || !plot._fullLayout || !plot.data) return null;
    const dimensions = t => t.dimensions && t.dimensions.map(d => ({label: d.label, values: d.values}));
    const {xaxis, yaxis} = plot._fullLayout;
    return {
        traces: plot.data.map(t => ({name: t.name, type: t.type, mode: t.mode, x: t.x, y: t.y, text: t.text,
                                          dimensions: dimensions(t), colors: t.line && t.line.color,
                                          scale: t.line && t.line.colorscale})),
        xaxis: xaxis && {type: xaxis.type, title: xaxis.title.text},
        yaxis: yaxis && {ticks: [...plot.querySelectorAll('.ytick text')].map(tick => tick.textContent)},
    };
}"""


@pytest.fixture
def stored_page(browser, lab_server):
    """A Lab page with a notebook showing two stored searches (a large one and a PBT one)."""
    searches = write_stored_searches(lab_server.store.path)
    sources = ["%load_ext hpnb", f"%hpsearch show {searches.paged}", f"%hpsearch show {searches.pbt}"]
    with notebook_page(browser, lab_server, STORED_NOTEBOOK, sources, "dashboard-stored", VIEWPORT,
                       WAIT_MS) as opened:
        yield (*opened, searches)


def _shown(page, log, output: int, ready: str, what: str) -> dict:
    """What the plot shown in dashboard ``output`` draws, once ``ready`` (JS, given it) holds."""
    found: dict = wait_until(page, log, f"(arg) => {{ const d = ({SHOWN_TRACES})(arg); "
                                        f"return !!d && ({ready})(d) ? d : null; }}", arg=[output], what=what)
    return found


def _the_history_runs_by_end_time(page, log, paged, trials: dict) -> None:
    """The history by end time: a time axis, in the order the trials ended; then back."""
    paged.locator(".hpnb-history-order .widget-toggle-button", has_text="by end time").click()
    drawn = _shown(page, log, 1, "d => d.xaxis.type === 'date'", "the history by end time")
    assert drawn["xaxis"]["title"] == "end time" and len(drawn["traces"][0]["x"]) == len(trials)
    assert drawn["traces"][0]["x"] == sorted(drawn["traces"][0]["x"])
    paged.locator(".hpnb-history-order .widget-toggle-button", has_text="by trial number").click()
    _shown(page, log, 1, "d => d.xaxis.type === 'linear'", "the history by trial number")


def _the_selected_trial_stands_out(page, log, paged, trials: dict, steps: int) -> None:
    """A selected row is the red curve, and the red line drawn last in the parallel coordinates."""
    row = paged.locator(".hpnb-table tbody tr").nth(3)
    trial_id = int(row.get_attribute("data-trial"))
    row.click()
    paged.locator(f'.hpnb-table tr.hpnb-selected[data-trial="{trial_id}"]').wait_for()
    _show_tab(page, log, paged, "Curves", ".jp-OutputArea .scatterlayer path.js-line")
    # the history, shown until the tab switches, has a "selected" marker too: wait for the curves' line
    drawn = _shown(page, log, 1, "d => d.traces.some(t => t.name === 'selected' && t.mode === 'lines' "
                   "&& t.x.length > 0)", "the selected trial's curve")
    selected = next(t for t in drawn["traces"] if t["name"] == "selected")
    assert set(selected["text"]) == {f"trial {trial_id}"} and selected["x"] == list(range(steps))
    _show_tab(page, log, paged, "Parallel coordinates", ".jp-OutputArea .hpnb-pc")
    drawing = wait_drawn(page, paged.locator(".hpnb-pc").element_handle(),
                         f"d => d.mark && d.mark.trial === {trial_id}")
    chosen = trials[trial_id]
    assert_marked(drawing, trial_id, {"lr (log)": math.log10(chosen.params["lr"]),
                                      "layers": str(chosen.params["layers"]), "val_loss": chosen.value})


def _the_lineage_links_members(page, log, pbt, searches) -> None:
    """Members over steps, a line where one continued another, members on integer ticks."""
    assert "Lineage" in pbt.locator(".hpnb-plot-selector .widget-toggle-button").all_text_contents()
    _show_tab(page, log, pbt, "Lineage", ".jp-OutputArea .scatterlayer .point")
    drawn = _shown(page, log, 2, "d => d.traces.length === 2 && d.traces[0].x.length > 0", "the lineage")
    members, exploits = drawn["traces"]
    assert len(members["x"]) == searches.population * searches.generations * searches.pbt_steps
    exploited = [x for x in exploits["x"] if x is not None]
    assert len(exploited) == 2 * (searches.population // 2) * (searches.generations - 1)
    ticks = drawn["yaxis"]["ticks"]
    assert len(ticks) > 3 and all(tick.isdigit() for tick in ticks)  # members are trial numbers: no 2.5


def test_stored_dashboards_page_order_history_highlight_and_lineage(stored_page) -> None:
    page, log, searches = stored_page
    run_all_cells(page, log)
    outputs = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea")
    paged, pbt = outputs.nth(1), outputs.nth(2)
    with Store(searches.path, readonly=True) as store:
        trials = {t.trial_id: t for t in store.trials(store.experiment(searches.paged).id)}
    drawn = _shown(page, log, 1, "d => d.traces.length === 3 && d.traces[0].x.length > 0", "the history")
    assert drawn["xaxis"] == {"type": "linear", "title": "trial"}

    _the_history_runs_by_end_time(page, log, paged, trials)

    # The table pages: 15 rows a page, ranked.
    pager = paged.locator(".hpnb-pager")
    pager.filter(has_text=f"page 1 of 16 ({searches.paged_trials} trials)").wait_for()
    assert pager.locator("button", has_text="previous").is_disabled()
    pager.locator("button", has_text="next").click()
    pager.filter(has_text="page 2 of 16").wait_for()
    # the pager's text may change before the rows do: wait for the page's first rank
    paged.locator(".hpnb-table tbody tr:first-child td:first-child", has_text=re.compile(r"^16$")).wait_for()
    assert [int(rank) for rank in _column(paged, 0)] == list(range(16, 31))

    _the_selected_trial_stands_out(page, log, paged, trials, searches.paged_steps)
    _the_lineage_links_members(page, log, pbt, searches)
    assert not log.problems(), str(log)
