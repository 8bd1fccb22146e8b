"""The Lab experiment view's analyses, table and trial log, and the comparison opened from the
sidebar, in a real JupyterLab driven in headless Chromium."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest

from hpnb.core.store import Store
from hpnb.core.summary import ranked
from hpnb.core.trial_output import TrialOutput
from hpnb.runner.checkpoint_store import CheckpointStore, search_location
from tests.browser.parallel_coordinates import assert_marked, height_on, wait_drawn
from tests.browser.stored_searches import StoredSearches, write_stored_searches
from tests.browser.test_lab_extension import TALL_VIEWPORT, VIEWPORT, item, open_experiment, show_sidebar
from tests.jupyter.server.insight_store import METRIC, OPTIMIZERS, InsightSearches, write_insight_searches
from tests.runner.checkpointing_objectives import TINY_PNG

pytestmark = pytest.mark.slow

DOC_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


@pytest.fixture(scope="module")
def searches(lab_server) -> InsightSearches:
    return write_insight_searches(lab_server.store.path)


@pytest.fixture(scope="module")
def stored(lab_server) -> StoredSearches:
    return write_stored_searches(lab_server.store.path)


def plot_data(page, selector: str) -> dict:
    """What plotly drew in the plot at ``selector``: its traces' types and its axes."""
    return page.evaluate(
        """selector => {
            const root = document.querySelector(selector);
            const layout = root._fullLayout;
            const axis = name => layout[name] && {type: layout[name].type, title: layout[name].title.text,
                                                  tickvals: layout[name].tickvals || null};
            return {types: root._fullData.map(t => t.type), names: root._fullData.map(t => t.name),
                    xaxis: axis('xaxis'), yaxis: axis('yaxis')};
        }""",
        selector,
    )


def assert_marked_on_its_point(page, selector: str, trial: int) -> None:
    """The history's selected-trial mark is on the trial's own point (its ring's centre on the
    point's, on screen) and says which trial it is."""
    mark = page.locator(f'{selector} .hpnb-selected-mark[data-trial="{trial}"]')
    mark.wait_for(state="attached")
    assert mark.locator("text").text_content() == f"trial {trial}"
    centres = page.evaluate("""([s, trial]) => {
        const root = document.querySelector(s);
        const centre = node => {
            const box = node.getBoundingClientRect();
            return [box.x + box.width / 2, box.y + box.height / 2];
        };
        const index = root._fullData[0].customdata.indexOf(trial);
        const point = root.querySelectorAll('.scatterlayer .trace')[0].querySelectorAll('.point')[index];
        return [centre(root.querySelector('.hpnb-selected-mark circle')), centre(point)];
    }""", [selector, trial])  # fmt: skip
    (ring_x, ring_y), (point_x, point_y) = centres
    assert abs(ring_x - point_x) < 1.5 and abs(ring_y - point_y) < 1.5, centres


def keep_for_docs(page, save_screenshot, name: str) -> None:
    page.set_viewport_size(TALL_VIEWPORT)
    try:
        path = save_screenshot(page, name)
    finally:
        page.set_viewport_size(VIEWPORT)
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES"):
        shutil.copy(path, DOC_IMAGES / f"{name}.png")


def open_tab(view, name: str) -> None:
    view.locator(f'.hpnb-tab[data-tab="{name}"]').click()
    view.locator(f".hpnb-pane-{name}").wait_for(state="visible")


def test_importance_tab_ranks_the_parameters_and_says_when_there_are_too_few_trials(
    lab_page, searches, save_screenshot
):
    page = lab_page
    view = open_experiment(page, searches.tuned)
    open_tab(view, "importance")
    view.locator(".hpnb-importance .barlayer .point").nth(2).wait_for()
    drawn = page.evaluate("document.querySelector('.hpnb-importance')._fullData[0].y")
    assert drawn[-1] == "lr" and sorted(drawn) == ["layers", "lr", "optimizer"]  # most important on top
    assert "completed trials" in view.locator(".hpnb-pane-importance .hpnb-tab-message").inner_text()
    keep_for_docs(page, save_screenshot, "lab-importance")

    single = open_experiment(page, searches.single)
    open_tab(single, "importance")
    message = single.locator(".hpnb-pane-importance .hpnb-tab-message")
    message.filter(has_text="at least 4 completed trials").wait_for()
    assert "has 1" in message.inner_text()
    assert single.locator(".hpnb-importance").is_hidden()
    assert page.errors == []


def test_slices_and_contour_draw_each_parameter_on_its_own_kind_of_axis(lab_page, searches, save_screenshot):
    page = lab_page
    view = open_experiment(page, searches.tuned)
    open_tab(view, "slices")
    chooser = view.locator(".hpnb-slice-param")
    chooser.locator("option").nth(2).wait_for(state="attached")
    assert chooser.locator("option").all_inner_texts() == ["lr", "layers", "optimizer"]

    selector = f"#hpnb-experiment-{searches.tuned} .hpnb-slices"
    view.locator(".hpnb-slices .scatterlayer .point").first.wait_for()
    assert plot_data(page, selector)["xaxis"]["type"] == "log"
    chooser.select_option("layers")
    titled = "([s, t]) => document.querySelector(s)._fullLayout.xaxis.title.text === t"
    page.wait_for_function(titled, arg=[selector, "layers"])
    ticks = plot_data(page, selector)["xaxis"]["tickvals"]
    assert ticks == [1, 2, 3, 4]
    chooser.select_option("optimizer")
    page.wait_for_function(titled, arg=[selector, "optimizer"])
    labels = page.evaluate("s => document.querySelector(s)._fullLayout.xaxis.ticktext", selector)
    assert labels == ["adam", "sgd", "rmsprop"]
    save_screenshot(page, "lab-slices")

    # the importance the contour's axes follow, from its own tab
    open_tab(view, "importance")
    importance = page.wait_for_function(
        "s => { const d = document.querySelector(s)._fullData; return d && d.length && d[0].y; }",
        arg=f"#hpnb-experiment-{searches.tuned} .hpnb-importance",
    ).json_value()
    open_tab(view, "contour")
    view.locator(".hpnb-contour .contourlayer").first.wait_for(state="attached")
    drawn = plot_data(page, f"#hpnb-experiment-{searches.tuned} .hpnb-contour")
    assert drawn["types"] == ["contour", "scatter"]
    two_most = list(reversed(importance))[:2]
    assert [drawn["xaxis"]["title"], drawn["yaxis"]["title"]] == [f"{two_most[0]} (log)", two_most[1]]
    save_screenshot(page, "lab-contour")
    # a categorical parameter: one band of cells per category, no colour between two of them
    contour = f"#hpnb-experiment-{searches.tuned} .hpnb-contour"
    view.locator(".hpnb-contour-y").select_option("optimizer")
    on_y = "([s, t]) => document.querySelector(s)._fullLayout.yaxis.title.text === t"
    page.wait_for_function(on_y, arg=[contour, "optimizer"])
    read = "node => [node._fullData.map(t => t.type), node.data[0].y, node._fullLayout.yaxis.ticktext]"
    types, rows, labels = page.locator(contour).evaluate(read)
    assert types == ["heatmap", "scatter"] and rows == [0, 1, 2] and labels == list(OPTIMIZERS)
    assert page.errors == []


def test_the_leaderboard_sorts_by_any_column(lab_page, searches, save_screenshot):
    page = lab_page
    view = open_experiment(page, searches.tuned)
    rows = view.locator(".hpnb-leaderboard tbody tr")
    rows.nth(searches.trials - 1).wait_for()
    header = view.locator('th[data-sort="param:lr"]')

    def lr_column() -> list[float]:
        index = view.locator(".hpnb-leaderboard thead th").all_inner_texts().index("lr")
        return [float(text) for text in view.locator(f".hpnb-leaderboard tbody td:nth-child({index + 1})")
                .all_inner_texts()]  # fmt: skip

    header.click()
    view.locator('th[data-sort="param:lr"][aria-sort="ascending"]').wait_for()
    ascending = lr_column()
    assert ascending == sorted(ascending) and len(ascending) == searches.trials
    header.click()
    view.locator('th[data-sort="param:lr"][aria-sort="descending"]').wait_for()
    assert lr_column() == sorted(ascending, reverse=True)
    states = view.locator(".hpnb-leaderboard tbody td .hpnb-badge.hpnb-state-completed")
    assert states.count() == searches.trials  # states as coloured badges
    view.locator('th[data-sort="rank"]').click()
    view.locator('th[data-sort="rank"][aria-sort="ascending"]').wait_for()
    save_screenshot(page, "lab-leaderboard-sorted")


def test_selecting_a_trial_shows_its_log_and_highlights_it(lab_page, searches, save_screenshot):
    page = lab_page
    with Store(searches.path) as store:
        record = store.experiment(searches.tuned)
        trials_by_id = {t.trial_id: t for t in store.trials(record.id)}
        worst = ranked(list(trials_by_id.values()), "min")[-1].trial_id
        printed = "epoch 1 loss 0.9\nepoch 2 loss 0.8\n"
        store.set_trial_output(record.id, worst, TrialOutput(
            stdout=printed, stdout_bytes=len(printed), stderr="a warning\n", stderr_bytes=10,
            worker="tcp://127.0.0.1:4242", peak_memory_bytes=300 * 2**20))  # fmt: skip
        artifacts = CheckpointStore(search_location(store.path, record.name, record.id, record.created,
                                                    record.spec))
    for name, data in (("plots/tiny.png", TINY_PNG), ("metrics.json", b'{"auc": 0.9}')):
        (searches.path.parent / "artifact").write_bytes(data)
        artifacts.put_artifact(worst, name, searches.path.parent / "artifact")
    view = open_experiment(page, searches.tuned)
    view.locator('th[data-sort="rank"][aria-sort="ascending"]').wait_for()
    row = view.locator(f'.hpnb-leaderboard tbody tr[data-trial="{worst}"]')
    row.click()
    panel = view.locator(".hpnb-trial-panel")
    panel.locator(".hpnb-log-stdout", has_text="epoch 2 loss 0.8").wait_for()
    assert "a warning" in panel.locator(".hpnb-log-stderr").inner_text()
    assert "tcp://127.0.0.1:4242" in panel.inner_text() and "300 MiB" in panel.inner_text()
    assert row.get_attribute("class") == "hpnb-row-selected"
    # its artifacts, through the server's authenticated route: the image shown, the file downloaded
    image = panel.locator(".hpnb-artifacts img.hpnb-artifact-image")
    shown = image.evaluate("img => img.decode().then(() => [img.alt, img.naturalWidth])")  # fails if refused
    assert shown == ["plots/tiny.png", 1]
    with page.expect_download() as download:
        panel.locator(".hpnb-artifacts a", has_text="metrics.json").click()  # a type a tab would show
    assert download.value.suggested_filename == "metrics.json"
    assert Path(download.value.path()).read_bytes() == b'{"auc": 0.9}'

    history = f"#hpnb-experiment-{searches.tuned} .hpnb-history"
    assert_marked_on_its_point(page, history, worst)
    curves = f"#hpnb-experiment-{searches.tuned} .hpnb-curves"
    red = ("([s, n]) => document.querySelector(s)._fullData.filter(t => t.line.color === '#d62728')"
           ".map(t => t.name).join() === n")  # its curve alone red
    page.wait_for_function(red, arg=[curves, f"trial {worst}"])
    open_tab(view, "parcoords")
    parcoords = f"#hpnb-experiment-{searches.tuned} .hpnb-parcoords"
    chosen = trials_by_id[worst]
    crossings = {"layers": str(chosen.params["layers"]), "optimizer": chosen.params["optimizer"],
                 "lr (log)": math.log10(chosen.params["lr"]), METRIC: chosen.value}
    drawing = wait_drawn(page, parcoords, f"d => d.mark && d.mark.trial === {worst}")
    assert [axis["title"] for axis in drawing["axes"]] == ["lr (log)", "layers", "optimizer", METRIC]
    assert_marked(drawing, worst, crossings)
    page.set_viewport_size({"width": 1100, "height": 900})  # drawn again, narrower
    try:
        narrower = wait_drawn(page, parcoords, f"d => d.axes.at(-1).x < {drawing['axes'][-1]['x'] - 1}")
        assert_marked(narrower, worst, crossings)
    finally:
        page.set_viewport_size(VIEWPORT)
    save_screenshot(page, "lab-trial-log")
    assert page.errors == []


def test_dragging_along_an_axis_keeps_the_trials_in_that_range_in_colour(lab_page, searches):
    page = lab_page
    with Store(searches.path, readonly=True) as store:
        trials = store.trials(store.experiment(searches.tuned).id)
    scores = sorted(t.value for t in trials if t.value is not None)
    view = open_experiment(page, searches.tuned)
    open_tab(view, "parcoords")
    parcoords = f"#hpnb-experiment-{searches.tuned} .hpnb-parcoords"
    drawing = wait_drawn(page, parcoords)
    assert drawing["lines"] == drawing["shown"] == len(scores)
    axis = next(a for a in drawing["axes"] if a["label"] == METRIC)
    # from between the 5th and 6th best scores to between the 15th and 16th, well clear of any line
    low, high = (scores[4] + scores[5]) / 2, (scores[14] + scores[15]) / 2
    box = view.locator(".hpnb-parcoords .hpnb-pc").bounding_box()
    page.mouse.move(box["x"] + axis["x"], box["y"] + height_on(axis, high))
    page.mouse.down()
    page.mouse.move(box["x"] + axis["x"], box["y"] + height_on(axis, (low + high) / 2), steps=3)
    page.mouse.move(box["x"] + axis["x"], box["y"] + height_on(axis, low), steps=3)
    page.mouse.up()

    brushed = wait_drawn(page, parcoords, "d => d.shown < d.lines")
    assert brushed["shown"] == sum(1 for score in scores if low <= score <= high) == 10
    caption = view.locator(".hpnb-parcoords .hpnb-pc-count")
    assert caption.text_content() == f"10 of {len(scores)} lines in the brushed ranges"
    assert view.locator(f'.hpnb-parcoords g.hpnb-pc-axis[data-label="{METRIC}"] .hpnb-pc-brush').count() == 1

    page.mouse.click(box["x"] + axis["x"], box["y"] + height_on(axis, scores[20]))  # a click: no brush
    wait_drawn(page, parcoords, "d => d.shown === d.lines")
    assert caption.count() == 0
    assert page.errors == []


def test_the_sidebar_opens_a_comparison_of_the_ticked_searches(lab_page, searches, save_screenshot):
    page = lab_page
    show_sidebar(page)
    compare = page.locator(".hpnb-compare")
    item(page, searches.tuned).locator(".hpnb-compare-check").check()
    assert compare.is_disabled()  # one search is no comparison
    item(page, searches.other).click(modifiers=["Control"])  # Ctrl-click ticks too
    page.locator(".hpnb-compare", has_text="Compare 2").wait_for()
    assert item(page, searches.other).locator(".hpnb-compare-check").is_checked()
    assert page.locator(f"#hpnb-experiment-{searches.other}").count() == 0  # Ctrl-click opens nothing
    compare.click()

    view = page.locator(".hpnb-compare-view")
    view.wait_for(state="visible")
    for plot in ("trials", "time"):
        view.locator(f".hpnb-compare-{plot} .scatterlayer .trace").nth(1).wait_for()
        names = page.evaluate("s => document.querySelector(s)._fullData.map(t => t.name)",
                              f".hpnb-compare-view .hpnb-compare-{plot}")  # fmt: skip
        assert names == [searches.tuned, searches.other]
    rows = view.locator(".hpnb-compare-table tbody tr")
    assert rows.count() == 2 and rows.first.locator("td").first.inner_text() == searches.tuned
    keep_for_docs(page, save_screenshot, "lab-comparison")
    assert page.errors == []


def test_the_history_runs_by_trial_number_or_by_end_time(lab_page, stored):
    page = lab_page
    view = open_experiment(page, stored.paged)
    history = f"#hpnb-experiment-{stored.paged} .hpnb-history"
    view.locator(".hpnb-history .scatterlayer .point").first.wait_for()
    assert plot_data(page, history)["xaxis"]["title"] == "trial"
    best_line = "s => document.querySelector(s)._fullData.find(t => t.name === 'best so far')"

    chosen = int(view.locator(".hpnb-leaderboard tbody tr").nth(3).get_attribute("data-trial"))
    view.locator(f'.hpnb-leaderboard tbody tr[data-trial="{chosen}"]').click()
    assert_marked_on_its_point(page, history, chosen)

    view.locator(".hpnb-history-order").select_option(label="by end time")
    page.wait_for_function("s => document.querySelector(s)._fullLayout.xaxis.type === 'date'", arg=history)
    assert_marked_on_its_point(page, history, chosen)  # the mark moved with its point to its end time
    assert plot_data(page, history)["xaxis"]["title"] == "end time"
    line = page.evaluate(f"s => {{ const t = ({best_line})(s); return [t.x, t.y]; }}", history)
    assert line[0] == sorted(line[0]) and len(line[0]) == stored.paged_trials  # in the order trials ended
    assert line[1] == sorted(line[1], reverse=True)  # the best so far only gets better (mode min)

    view.locator(".hpnb-history-order").select_option(label="by trial number")
    page.wait_for_function("s => document.querySelector(s)._fullLayout.xaxis.type === 'linear'", arg=history)
    assert plot_data(page, history)["xaxis"]["title"] == "trial"
    assert page.errors == []


def test_the_importance_evaluator_can_be_chosen(lab_page, searches):
    page = lab_page
    view = open_experiment(page, searches.tuned)
    open_tab(view, "importance")
    message = view.locator(".hpnb-pane-importance .hpnb-tab-message")
    message.filter(has_text="(fanova,").wait_for()
    bars = "s => document.querySelector(s)._fullData[0].y"
    importance = f"#hpnb-experiment-{searches.tuned} .hpnb-importance"

    view.locator(".hpnb-evaluator").select_option("ped-anova")

    message.filter(has_text="(ped-anova,").wait_for()
    drawn = page.evaluate(bars, importance)
    assert drawn[-1] == "lr" and sorted(drawn) == ["layers", "lr", "optimizer"]  # lr matters most either way
    view.locator(".hpnb-evaluator").select_option("fanova")
    message.filter(has_text="(fanova,").wait_for()
    assert page.errors == []


def test_the_leaderboard_pages_through_a_large_search(lab_page, stored):
    page = lab_page
    view = open_experiment(page, stored.paged)
    label, rows = view.locator(".hpnb-page-label"), view.locator(".hpnb-leaderboard tbody tr")
    label.filter(has_text=f"1–100 of {stored.paged_trials}").wait_for()
    assert view.locator(".hpnb-page-previous").is_disabled() and rows.count() == 100

    def ranks() -> list[int]:
        cells = view.locator(".hpnb-leaderboard tbody td:first-child")
        return [int(text) for text in cells.all_inner_texts()]

    assert ranks() == list(range(1, 101))
    view.locator(".hpnb-page-next").click()
    label.filter(has_text=f"101–200 of {stored.paged_trials}").wait_for()
    assert ranks() == list(range(101, 201))
    view.locator(".hpnb-page-next").click()
    label.filter(has_text=f"201–{stored.paged_trials} of {stored.paged_trials}").wait_for()
    assert ranks() == list(range(201, stored.paged_trials + 1))
    assert view.locator(".hpnb-page-next").is_disabled()
    view.locator(".hpnb-page-previous").click()
    label.filter(has_text=f"101–200 of {stored.paged_trials}").wait_for()
    assert page.errors == []
