"""Searches with several objectives in a real JupyterLab driven in headless Chromium: the Pareto
tab, the leaderboard's objective columns, parallel coordinates and importance per objective,
the sidebar's front size and the comparison's note."""

from __future__ import annotations

import pytest

from hpnb.core.non_domination import dominates
from hpnb.core.store import Store
from tests.browser.parallel_coordinates import wait_drawn
from tests.browser.test_lab_extension import item, open_experiment, show_sidebar
from tests.browser.test_lab_insight import keep_for_docs, open_tab
from tests.jupyter.server.pareto_store import ParetoSearches, write_pareto_searches

pytestmark = pytest.mark.slow

TWO = ("val_loss", "latency_ms")


@pytest.fixture(scope="module")
def searches(lab_server) -> ParetoSearches:
    return write_pareto_searches(lab_server.store.path)


def front_of(searches: ParetoSearches, name: str, objectives=TWO) -> set[int]:
    with Store(searches.path, readonly=True) as store:
        trials = store.trials(store.experiment(name).id)
    points = {t.trial_id: tuple(t.metrics[o] for o in objectives) for t in trials
              if t.state == "COMPLETED" and all(o in t.metrics for o in objectives)}
    return {i for i, p in points.items() if not any(dominates(other, p) for other in points.values())}


def traces(page, selector: str) -> list[dict]:
    """Each trace plotly drew at ``selector``: its name, ids, x and y, and the axes' titles."""
    return page.evaluate(
        """s => { const root = document.querySelector(s);
                  return root._fullData.map(t => ({name: t.name, ids: t.customdata || null, x: t.x, y: t.y,
                                                   shape: t.line && t.line.shape, type: t.type,
                                                   xtitle: root._fullLayout.xaxis.title.text,
                                                   ytitle: root._fullLayout.yaxis.title.text})); }""",
        selector,
    )


def test_the_pareto_tab_draws_the_front_and_a_click_selects_a_trial(lab_page, searches, save_screenshot):
    page = lab_page
    view = open_experiment(page, searches.two)
    tab = view.locator('.hpnb-tab[data-tab="pareto"]')
    tab.wait_for()
    assert tab.get_attribute("aria-selected") == "true"  # several objectives: the front comes first
    selector = f"#hpnb-experiment-{searches.two} .hpnb-pareto"
    view.locator(".hpnb-pareto .scatterlayer .trace").nth(2).locator(".point").first.wait_for()
    drawn = {t["name"]: t for t in traces(page, selector)}
    front = front_of(searches, searches.two)
    assert set(drawn["Pareto front"]["ids"]) == front
    line = drawn["front of these two"]
    assert line["shape"] == "hv" and line["x"] == sorted(line["x"]) and len(line["x"]) == len(front)
    assert line["y"] == sorted(line["y"], reverse=True)  # both minimised: a staircase down
    assert (line["xtitle"], line["ytitle"]) == ("val_loss (min)", "latency_ms (min)")
    message = view.locator(".hpnb-pane-pareto .hpnb-tab-message").inner_text()
    assert f"{len(front)} trials on the Pareto front" in message
    assert f"Pareto front: {len(front)} trials" in view.locator(".hpnb-view-summary").inner_text()
    assert view.locator(".hpnb-pareto-x").is_hidden()  # two objectives: no pair to choose

    point = view.locator(".hpnb-pareto .scatterlayer .trace").nth(2).locator(".point").first
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    selected = view.locator(".hpnb-leaderboard tbody tr.hpnb-row-selected")
    selected.wait_for()
    chosen = int(selected.get_attribute("data-trial"))
    assert chosen in front
    page.wait_for_function("([s, n]) => document.querySelector(s)._fullData.some(t => t.name === n)",
                           arg=[selector, f"trial {chosen}"])  # fmt: skip
    keep_for_docs(page, save_screenshot, "lab-pareto")
    assert page.errors == []


def test_the_leaderboard_has_the_pareto_rank_and_a_column_per_objective(lab_page, searches):
    view = open_experiment(lab_page, searches.two)
    view.locator('th[data-sort="pareto"]').wait_for()
    headers = view.locator(".hpnb-leaderboard thead th").all_inner_texts()
    assert headers[:5] == ["#", "trial", "Pareto rank", "val_loss (min)", "latency_ms (min)"]
    front = front_of(searches, searches.two)
    rows = view.locator(".hpnb-leaderboard tbody tr")
    ranks = {int(rows.nth(i).get_attribute("data-trial")): rows.nth(i).locator("td").nth(2).inner_text()
             for i in range(rows.count())}
    assert {trial for trial, rank in ranks.items() if rank == "0"} == front
    assert ranks[searches.failed] == "—"

    view.locator('th[data-sort="objective:latency_ms"]').click()
    view.locator('th[data-sort="objective:latency_ms"][aria-sort="ascending"]').wait_for()
    shown = [rows.nth(i).locator("td").nth(4).inner_text() for i in range(rows.count())]
    latencies = [float(text) for text in shown if text != "—"]
    assert latencies == sorted(latencies) and shown[-2:] == ["—", "—"]


def test_parallel_coordinates_and_importance_have_every_objective(lab_page, searches):
    page = lab_page
    view = open_experiment(page, searches.two)
    open_tab(view, "parcoords")
    drawing = wait_drawn(page, f"#hpnb-experiment-{searches.two} .hpnb-parcoords")
    titles = [axis["title"] for axis in drawing["axes"]]
    assert titles == ["depth", "width", "val_loss (min)", "latency_ms (min)"]
    assert drawing["bar_title"] == "Pareto rank"

    open_tab(view, "importance")
    view.locator(".hpnb-importance .barlayer .point").nth(3).wait_for(timeout=120_000)
    bars = traces(page, f"#hpnb-experiment-{searches.two} .hpnb-importance")
    assert [b["name"] for b in bars] == ["val_loss (min)", "latency_ms (min)"]
    assert all(sorted(b["y"]) == ["depth", "width"] for b in bars)
    assert "each objective" in view.locator(".hpnb-pane-importance .hpnb-tab-message").inner_text()
    assert page.errors == []


def test_with_three_objectives_any_pair_can_be_shown(lab_page, searches):
    page = lab_page
    view = open_experiment(page, searches.three)
    chooser = view.locator(".hpnb-pareto-y")
    chooser.locator("option").nth(2).wait_for(state="attached")
    assert chooser.locator("option").all_inner_texts() == ["val_loss", "latency_ms", "memory_mb"]
    view.locator(".hpnb-pareto-x").select_option("latency_ms")
    chooser.select_option("memory_mb")
    selector = f"#hpnb-experiment-{searches.three} .hpnb-pareto"
    titled = "s => document.querySelector(s)._fullLayout.yaxis.title.text === 'memory_mb (min)'"
    page.wait_for_function(titled, arg=selector)
    drawn = {t["name"]: t for t in traces(page, selector)}
    assert drawn["front of these two"]["xtitle"] == "latency_ms (min)"
    pair = front_of(searches, searches.three, ("latency_ms", "memory_mb"))
    assert len(drawn["front of these two"]["x"]) == len(pair)
    overall = front_of(searches, searches.three, ("val_loss", "latency_ms", "memory_mb"))
    assert set(drawn["Pareto front"]["ids"]) == overall  # ranks are over all three objectives
    assert "no other beats on latency_ms and memory_mb" in view.locator(
        ".hpnb-pane-pareto .hpnb-tab-message").inner_text()
    assert page.errors == []


def test_the_sidebar_shows_the_front_and_a_comparison_says_it_follows_the_first_objective(
        lab_page, lab_server, searches):
    page, sample_name = lab_page, lab_server.store.finished
    show_sidebar(page)
    row = item(page, searches.two)
    row.wait_for()
    front = front_of(searches, searches.two)
    outcome = row.locator(".hpnb-experiment-best")
    assert outcome.inner_text() == f"Pareto front: {len(front)} trials"
    assert outcome.get_attribute("title") == "minimise val_loss, minimise latency_ms"
    assert "min val_loss:" in item(page, sample_name).locator(".hpnb-experiment-best").inner_text()

    row.locator(".hpnb-compare-check").check()
    item(page, sample_name).locator(".hpnb-compare-check").check()
    page.locator(".hpnb-compare", has_text="Compare 2").click()
    status = page.locator(".hpnb-compare-view .hpnb-compare-status")
    status.filter(has_text="several objectives").wait_for()
    assert status.inner_text() == (f"{searches.two} (val_loss, latency_ms) has several objectives: compared "
                                   "here by the first objective alone; open a search for its Pareto front.")
    assert page.errors == []
