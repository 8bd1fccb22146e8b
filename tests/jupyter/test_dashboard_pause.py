"""The dashboard's Pause trial and Resume trial buttons on a real search (local Dask cluster, real
store file): a trial selected in the leaderboard is paused by a click and resumed by another."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import cloudpickle
import pytest

import hpnb
from hpnb.jupyter.dashboard.dashboard import Dashboard
from tests.runner import resumable
from tests.runner.processes import wait_for
from tests.waiting import patience

pytestmark = pytest.mark.slow

cloudpickle.register_pickle_by_value(resumable)


def start(tmp_path: Path, name: str, trials: int) -> hpnb.Search:
    """A live search of ``trials`` trials one at a time, each 30 steps of 0.1 s with a checkpoint each."""
    return hpnb.search(partial(resumable.counted_steps, steps=30, pause=0.1), store=tmp_path / "hpnb.sqlite",
                       name=name, metric="loss", trials=trials, parallel=1, seed=0,
                       parameters={"x": {"min": 1.0, "max": 2.0}}, resources={"workers": 2})


def test_pause_and_resume_buttons_act_on_the_trial_selected_in_the_leaderboard(
        local_clusters, tmp_path: Path) -> None:
    search = start(tmp_path, "buttons", trials=3)
    dashboard = Dashboard(search)
    controls = dashboard.controls
    trial = lambda: search.store.trial(search.experiment_id, 0)  # noqa: E731
    wait_for(lambda: search.store.trials(search.experiment_id) and trial().checkpoint
             and (trial().last_step or 0) >= 2)

    controls.pause_trial.click()  # nothing selected yet
    assert controls.message.value == "select a trial in the leaderboard first"
    dashboard.widgets.table.selected = 0  # a click on trial 0's row
    dashboard.refresh()
    assert not controls.pause_trial.disabled and controls.resume_trial.disabled

    controls.pause_trial.click()
    assert controls.message.value == "pause sent (trial 0)"  # the driver's answer comes after
    wait_for(lambda: controls.message.value == "trial 0 pauses at its next decision point, from its "
                                               "latest checkpoint")
    wait_for(lambda: trial().state == "PAUSED")
    dashboard.refresh()
    assert controls.pause_trial.disabled and not controls.resume_trial.disabled
    paused_at = trial().last_step

    controls.resume_trial.click()
    wait_for(lambda: controls.message.value == "trial 0 resumes in the next free slot")
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    rows = search.store.results(search.experiment_id, trial_id=0)
    assert [r.step for r in rows] == list(range(1, 31))  # every step once
    assert {r.metrics["started_at"] for r in rows if r.step > paused_at} == {paused_at + 1}

    dashboard.refresh()  # the search has ended: the buttons are off, and say why
    assert controls.pause_trial.disabled and controls.resume_trial.disabled
    assert "the search has ended" in controls.pause_trial.tooltip
    assert not controls.extend.disabled  # this kernel can run it again
    dashboard.close()


def test_pausing_a_finished_trial_from_the_dashboard_shows_why_not(local_clusters, tmp_path: Path):
    search = start(tmp_path, "finished", trials=2)
    dashboard = Dashboard(search)
    wait_for(lambda: any(t.trial_id == 1 for t in search.store.trials(search.experiment_id)))
    assert search.store.trial(search.experiment_id, 0).state == "COMPLETED" and search.is_live
    dashboard.widgets.table.selected = 0
    dashboard.controls.pause_trial.click()  # as a click that reached the kernel before a redraw
    wait_for(lambda: "trial 0 is COMPLETED: only a running or pending trial can be paused" in
             dashboard.controls.message.value)
    search.stop()
    search.wait(patience(60))
    dashboard.close()
