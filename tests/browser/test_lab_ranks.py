"""A user sees the ranks of a trial that spans several workers in a real JupyterLab, driven in
headless Chromium: a real search of 2-rank trials on the local cluster's two worker processes
says "2 ranks" in its leaderboard, and a trial's log panel lists each rank's worker and state; a
rank that changes state while the panel is open is redrawn at the view's next poll."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from tests.browser.test_lab_extension import open_experiment
from tests.runner import rank_objectives
from tests.waiting import patience

pytestmark = pytest.mark.slow


def shown_ranks(panel) -> list[list[str]]:
    """(rank, worker, state) of each row of the panel's ranks table, as the user reads them."""
    return panel.locator(".hpnb-ranks-table tbody tr").evaluate_all(
        "rows => rows.map(row => [...row.cells].map(cell => cell.textContent.trim()))")


def test_a_gang_trials_ranks_their_workers_and_states_are_shown_in_the_lab(
        lab_page, lab_server, dask_client, tmp_path: Path, save_screenshot) -> None:
    page = lab_page
    objective = partial(rank_objectives.one_rank_fails, folder=str(tmp_path), steps=60)  # x >= 0.5 fails
    search = hpnb.search(objective, name="gang-ranks", store=lab_server.store.path, client=dask_client,
                         metric="loss", strategy="grid",
                         parameters={"x": [0.2, 0.8]}, parallel=1, resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    with Store(lab_server.store.path) as store:
        trials = {t.params["x"]: t for t in store.trials(search.experiment_id)}
    workers = sorted(address.split("://", 1)[1] for address in dask_client.scheduler_info()["workers"])

    view = open_experiment(page, "gang-ranks")
    rows = view.locator(".hpnb-leaderboard tbody tr")
    rows.first.wait_for()
    assert [rows.nth(i).locator(".hpnb-rank-count").inner_text().strip() for i in range(2)] == ["2 ranks"] * 2

    view.locator(f'.hpnb-leaderboard tbody tr[data-trial="{trials[0.8].trial_id}"]').click()
    panel = view.locator(".hpnb-trial-panel")
    panel.locator(".hpnb-ranks .hpnb-log-title", has_text="2 ranks").wait_for()
    failed = shown_ranks(panel)
    assert [(rank, state) for rank, _, state in failed] == [("0", "stopped"), ("1", "failed")]
    assert sorted(host for _, host, _ in failed) == workers  # each rank on a worker of its own
    assert "rank 1 cannot go on" in panel.locator(".hpnb-log-traceback").inner_text()
    panel.locator(".hpnb-ranks").scroll_into_view_if_needed()
    save_screenshot(page, "lab-trial-ranks")

    view.locator(f'.hpnb-leaderboard tbody tr[data-trial="{trials[0.2].trial_id}"]').click()
    panel.locator(".hpnb-ranks-table .hpnb-rank-state", has_text="completed").first.wait_for()
    assert [state for _, _, state in shown_ranks(panel)] == ["completed", "completed"]
    assert not page.errors


def test_a_rank_that_changes_state_is_redrawn_in_the_open_panel(lab_page, lab_server) -> None:
    page, sample = lab_page, lab_server.store

    def ranks(*states: str) -> None:
        data = {"trial": 2, "attempt": 0, "ranks": [
            {"rank": i, "worker": f"tcp://10.0.0.{i + 7}:40123", "state": s} for i, s in enumerate(states)]}
        with Store(sample.path) as store:
            store.add_event(store.experiment(sample.running).id, "ranks", data)

    ranks("running", "running")
    view = open_experiment(page, sample.running)
    row = view.locator('.hpnb-leaderboard tbody tr[data-trial="2"]')
    row.locator(".hpnb-rank-count", has_text="2 ranks").wait_for()
    row.click()
    panel = view.locator(".hpnb-trial-panel")
    panel.locator(".hpnb-ranks-table").wait_for()
    assert shown_ranks(panel) == [["0", "10.0.0.7:40123", "running"], ["1", "10.0.0.8:40123", "running"]]

    ranks("running", "lost")  # its worker died: the view's next poll shows it
    panel.locator(".hpnb-ranks-table tr[data-rank='1'] .hpnb-rank-state", has_text="lost").wait_for()
    assert shown_ranks(panel)[1] == ["1", "10.0.0.8:40123", "lost"]
    badge = panel.locator("tr[data-rank='1'] .hpnb-rank-state")
    assert "hpnb-state-failed" in (badge.get_attribute("class") or "")  # coloured as a failure
