"""The JupyterLab extension in a real JupyterLab, driven in headless Chromium."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.waiting import patience

pytestmark = pytest.mark.slow

DOC_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "lab-experiment-view.png"
VIEWPORT = {"width": 1400, "height": 900}
TALL_VIEWPORT = {"width": 1400, "height": 1180}


def show_sidebar(page) -> None:
    if not page.locator("#hpnb-experiments").is_visible():
        page.click('li[data-id="hpnb-experiments"]')
    page.wait_for_selector("#hpnb-experiments", state="visible")


def open_experiment(page, name: str):
    show_sidebar(page)
    page.click(f'.hpnb-experiment[data-name="{name}"]')
    view = page.locator(f"#hpnb-experiment-{name}")
    view.wait_for(state="visible")
    return view


def item(page, name: str):
    return page.locator(f'.hpnb-experiment[data-name="{name}"]')


def line_tokens(cell) -> list[tuple[str, str]]:
    """(text, class) of every highlighted span on the cell's `metric: val_loss` line."""
    line = cell.locator(".cm-line", has_text="metric: val_loss")
    return line.evaluate("node => [...node.querySelectorAll('span')].map(s => [s.textContent, s.className])")


def test_lab_sidebar_lists_every_experiment_and_follows_the_store(lab_page, lab_server, save_screenshot):
    page, sample = lab_page, lab_server.store
    show_sidebar(page)
    item(page, sample.finished).wait_for()
    assert item(page, sample.finished).locator(".hpnb-badge").inner_text() == "completed"
    assert item(page, sample.running).locator(".hpnb-badge").inner_text() == "running"
    assert "7 / 7" in item(page, sample.finished).inner_text()

    with Store(sample.path) as store:
        store.create_experiment(
            "fresh-search", {}, metric="acc", mode="max", strategy="sobol", budget=3, parallel=1
        )
    item(page, "fresh-search").wait_for()  # the list refreshes by itself

    # the filter's placeholder fits the sidebar's default width (not "Filter by name, state, stra")
    fits = """node => { const context = document.createElement('canvas').getContext('2d');
        const style = getComputedStyle(node); context.font = style.font;
        const room = node.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return [node.placeholder, context.measureText(node.placeholder).width <= room]; }"""
    assert page.locator(".hpnb-filter").evaluate(fits) == ["Filter searches", True]
    page.fill(".hpnb-filter", "cnn")
    item(page, sample.finished).wait_for(state="detached")
    assert item(page, sample.running).is_visible()
    save_screenshot(page, "lab-sidebar-filtered")
    page.fill(".hpnb-filter", "")
    item(page, sample.finished).wait_for()
    save_screenshot(page, "lab-sidebar")


def test_lab_experiment_view_shows_leaderboard_curves_and_parallel_coordinates(
    lab_page, lab_server, save_screenshot
):
    page, sample = lab_page, lab_server.store
    view = open_experiment(page, sample.finished)
    rows = view.locator(".hpnb-leaderboard tbody tr")
    total = sample.finished_trials + sample.failed_trials
    rows.nth(total - 1).wait_for()
    assert rows.count() == total

    with Store(sample.path, readonly=True) as store:
        trials = store.trials(store.experiment(sample.finished).id)
    best = min((t for t in trials if t.best is not None), key=lambda t: t.best)
    assert rows.first.get_attribute("data-trial") == str(best.trial_id)
    shown = [rows.nth(i).locator("td").nth(2).inner_text() for i in range(total)]
    scores = [float(text) for text in shown if text != "—"]
    assert scores == sorted(scores) and len(scores) == sample.finished_trials

    history = f"#hpnb-experiment-{sample.finished} .hpnb-history"
    view.locator(".hpnb-history .scatterlayer .point").first.wait_for()
    read = "s => [s._fullLayout.yaxis.range, s._fullData[0].y]"
    (low, high), drawn = page.locator(history).evaluate(read)
    span = max(drawn) - min(drawn)
    assert low <= min(drawn) and high >= max(drawn) and (high - low) - span <= 0.2 * span  # a margin, no more

    view.locator(".hpnb-curves .main-svg").first.wait_for()
    view.locator(".hpnb-curves .scatterlayer .trace").nth(total - 1).wait_for()
    assert view.locator(".hpnb-curves .scatterlayer .trace").count() == total
    titles = view.locator(".hpnb-parcoords .hpnb-pc-title")
    titles.nth(3).wait_for()
    assert titles.all_text_contents() == ["layers", "lr", "optimizer", "val_loss"]
    lines = int(view.locator(".hpnb-parcoords .hpnb-pc").get_attribute("data-lines"))
    assert lines == sample.finished_trials  # one line per trial with a score

    page.set_viewport_size(TALL_VIEWPORT)  # room for both plots in one picture
    try:
        path = save_screenshot(page, "lab-experiment-view")
    finally:
        page.set_viewport_size(VIEWPORT)
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES"):
        DOC_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, DOC_IMAGE)


def test_lab_stop_button_sends_a_stop_command_to_a_running_search(lab_page, lab_server, save_screenshot):
    page, sample = lab_page, lab_server.store
    view = open_experiment(page, sample.running)
    button = view.locator(".hpnb-stop")
    button.wait_for()

    def is_stop(response) -> bool:  # the client adds a cache-busting query string
        return response.url.split("?")[0].endswith("/commands") and response.request.method == "POST"

    with page.expect_response(is_stop, timeout=120_000) as answer:
        button.click()
        view.locator(".hpnb-stop:disabled", has_text="Stopping").wait_for()
    assert answer.value.status == 200
    with Store(sample.path, readonly=True) as store:
        record = store.experiment(sample.running)
        assert record.stop_requested is True
        assert [c.kind for c in store.pending_commands(record.id)] == ["stop"]
        assert store.experiment(sample.finished).stop_requested is False
    # this store's running search has no driver: the command waits for one, and the view says so
    view.locator(".hpnb-command-status", has_text="the driver has not answered yet").wait_for()
    view.locator(".hpnb-stop:disabled", has_text="Stopping").wait_for()
    with Store(sample.path) as store:  # a driver that answers late: the view follows the command
        (command,) = store.pending_commands(store.experiment(sample.running).id)
        reply = f"search {sample.running!r} stops: running trials are asked to stop, no new one starts"
        store.answer_command(command.id, "done", reply)  # what the driver answers (hpnb.runner.commands)
    view.locator(".hpnb-command-done", has_text=reply).wait_for()
    save_screenshot(page, "lab-stop-requested")


def test_lab_a_click_held_across_a_sidebar_refresh_still_opens_the_search(lab_page, lab_server):
    page, name = lab_page, "held-click"
    with Store(lab_server.store.path) as store:
        store.create_experiment(name, {}, metric="loss", mode="min", strategy="random", budget=3, parallel=1)
    show_sidebar(page)
    row = item(page, name)
    row.wait_for()
    row.evaluate("node => { window.hpnbPressedRow = node; }")

    def is_list(response) -> bool:
        return response.url.split("?")[0].endswith("/hpnb/api/experiments")

    box = row.locator(".hpnb-experiment-name").bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.down()
    with page.expect_response(is_list, timeout=30_000):  # the list refreshes while the button is down
        pass
    page.wait_for_timeout(500)  # the response is drawn
    assert row.evaluate("node => node === window.hpnbPressedRow"), "the refresh kept the pressed row"
    page.mouse.up()
    page.locator(f"#hpnb-experiment-{name}").wait_for(state="visible")


def test_lab_hpsearch_cell_body_is_highlighted_as_yaml(lab_page, save_screenshot):
    page = lab_page
    page.click('#jp-main-dock-panel .lm-TabBar-tab:has-text("spec-cells.ipynb")')
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    spec_cell, python_cell = cells.nth(0), cells.nth(1)
    spec_cell.locator(".cm-line", has_text="metric: val_loss").locator("span").first.wait_for()

    yaml_tokens = line_tokens(spec_cell)
    python_tokens = line_tokens(python_cell)
    assert yaml_tokens[0][0] == "metric", "the YAML key is one token"
    assert yaml_tokens != python_tokens

    # Typing the magic into the Python cell switches its body to YAML as well.
    python_cell.locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("%%hpsearch train\n")
    page.wait_for_function(
        """([cell, expected]) => {
            const line = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')][cell]
                .querySelectorAll('.cm-line')[1];
            const tokens = [...line.querySelectorAll('span')].map(s => [s.textContent, s.className]);
            return JSON.stringify(tokens) === JSON.stringify(expected);
        }""",
        arg=[1, yaml_tokens],
    )
    save_screenshot(page, "lab-hpsearch-highlighting")
    assert page.errors == []


def test_lab_stop_button_stops_a_real_running_search(lab_page, running_search, save_screenshot):
    page = lab_page
    view = open_experiment(page, running_search.name)
    view.locator(".hpnb-curves .scatterlayer .trace").first.wait_for()  # results are streaming in
    assert running_search.state == "RUNNING"

    view.locator(".hpnb-stop").click()
    view.locator(".hpnb-command-status", has_text="stops: running trials are asked to stop").wait_for()
    running_search.wait(patience(60))
    assert running_search.state == "STOPPED"
    trials = running_search.store.trials(running_search.experiment_id)
    # trials queued on the cluster but not started stay PENDING, for a resume to run
    assert trials and {t.state for t in trials} <= {"STOPPED", "COMPLETED", "PENDING"}
    assert not any(t.state == "RUNNING" for t in trials)
    view.locator(".hpnb-view-header .hpnb-badge", has_text="stopped").wait_for()
    assert view.locator(".hpnb-stop").count() == 0
    save_screenshot(page, "lab-real-search-stopped")


def test_lab_interrupted_search_offers_resume_instead_of_stop(lab_page, lab_server, save_screenshot):
    page, sample, name = lab_page, lab_server.store, "orphaned-search"
    with Store(sample.path) as store:
        record = store.create_experiment(
            name, {}, metric="loss", mode="min", strategy="random", budget=5, parallel=2
        )
        # its driver beat a minute ago, then died with two trials under way
        store.update_experiment(record.id, state="RUNNING", heartbeat=time.time() - 60)
        store.add_trial(record.id, 0, {"lr": 0.1}, state="RUNNING")
        store.update_trial(record.id, 0, state="COMPLETED", value=0.5, best=0.5, end=time.time())
        for trial_id in (1, 2):
            store.add_trial(record.id, trial_id, {"lr": 0.01 * trial_id}, state="RUNNING")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab_server.url)

    show_sidebar(page)
    row = item(page, name)
    row.locator(".hpnb-badge.hpnb-state-interrupted", has_text="interrupted").wait_for()
    assert "2 interrupted" in row.inner_text()
    assert row.locator(".hpnb-stop").count() == 0
    assert item(page, sample.running).locator(".hpnb-stop").count() == 1  # a live one keeps Stop

    row.locator(".hpnb-resume").click()  # explains, and does not open the view
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for()
    commands = dialog.locator(".hpnb-resume-command").all_inner_texts()
    assert commands == [f"%hpsearch resume {name}", f"hpnb resume {name} --objective MODULE:FUNCTION"]
    dialog.locator(".hpnb-resume-status", has_text="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == f"%hpsearch resume {name}"
    assert page.locator(f"#hpnb-experiment-{name}").count() == 0
    save_screenshot(page, "lab-resume-dialog")
    dialog.locator(".jp-Dialog-footer button", has_text="Close").click()
    dialog.wait_for(state="detached")

    view = open_experiment(page, name)
    view.locator(".hpnb-view-header .hpnb-resume").wait_for()
    assert view.locator(".hpnb-stop").count() == 0
    assert "2 interrupted" in view.locator(".hpnb-view-summary").inner_text()
    states = view.locator(".hpnb-leaderboard tbody td:nth-child(4)").all_inner_texts()
    assert sorted(states) == ["completed", "interrupted", "interrupted"]
    save_screenshot(page, "lab-interrupted-search")
    assert page.errors == []


def _write_tied_search(path: Path) -> None:
    """Two trials tied at 0.5, one at 0.7, one running (0.1 so far) and one paused (0.2), and a
    search with no trial yet."""
    spec = {"metric": "loss", "mode": "min", "parameters": {"width": [1, 2], "alpha": [0.1, 0.2]}}
    with Store(path) as store:
        tied = store.create_experiment("tied", spec, metric="loss", mode="min", strategy="grid", budget=6,
                                       parallel=2)  # fmt: skip
        store.update_experiment(tied.id, state="RUNNING", heartbeat=time.time() + 3600)
        states = [("COMPLETED", 0.5), ("COMPLETED", 0.5), ("COMPLETED", 0.7), ("RUNNING", 0.1),
                  ("PAUSED", 0.2)]  # fmt: skip
        for trial_id, (state, best) in enumerate(states):
            store.add_trial(tied.id, trial_id, {"width": 1, "alpha": 0.1}, state="RUNNING")
            end = None if state in ("RUNNING", "PAUSED") else time.time()
            store.update_trial(tied.id, trial_id, state=state, start=time.time() - 0.25, end=end,
                               best=best, value=best)  # fmt: skip
        empty = store.create_experiment("empty", spec, metric="loss", mode="min", strategy="grid", budget=4,
                                        parallel=1)  # fmt: skip
        store.update_experiment(empty.id, state="RUNNING", heartbeat=time.time() + 3600)


def test_lab_leaderboard_ranks_ties_and_partial_scores_as_the_cell_does(lab_page, lab_server):
    page = lab_page
    _write_tied_search(lab_server.store.path)
    view = open_experiment(page, "tied")
    rows = view.locator(".hpnb-leaderboard tbody tr")
    rows.nth(4).wait_for()
    cells = [rows.nth(i).locator("td").all_inner_texts()[:3] for i in range(5)]
    assert cells == [["1 (tied)", "0", "0.5"], ["1 (tied)", "1", "0.5"], ["3", "2", "0.7"],
                     ["4", "3", "0.1 (partial)"], ["5", "4", "0.2 (partial)"]]  # fmt: skip
    assert view.locator(".hpnb-leaderboard thead th").all_inner_texts()[4:6] == ["width", "alpha"]
    assert "ms" in rows.first.locator("td").nth(6).inner_text()  # 250 ms, not "0.2 s"
    summary = view.locator(".hpnb-view-summary").inner_text()
    assert "3 / 6 · 1 running · 1 paused" in summary

    empty = open_experiment(page, "empty")
    history = "#hpnb-experiment-empty .hpnb-history"
    empty.locator(".hpnb-history .annotation-text").wait_for()
    assert empty.locator(".hpnb-history .annotation-text").text_content() == \
        "waiting for the first trial to finish with a score"
    assert page.evaluate("s => document.querySelector(s)._fullLayout.xaxis.visible", history) is False
    assert page.errors == []
