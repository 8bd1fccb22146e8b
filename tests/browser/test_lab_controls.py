"""The experiment view's controls of a live search, clicked in a real JupyterLab in headless Chromium:
the search is a real ``hpnb.search`` whose driver (in this process) carries out what the page sends
through the server and the store, and the page shows its answers."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import cloudpickle
import pytest

import hpnb
from tests.browser.test_lab_extension import open_experiment
from tests.runner import resumable
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

cloudpickle.register_pickle_by_value(resumable)

NAME = "steered"
DOC_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "lab-controls.png"


@pytest.fixture
def steered_search(lab_server, dask_client) -> Iterator[hpnb.Search]:
    """A live search of 4 trials, 2 at once, checkpointing every step (so that a trial can be paused)."""
    search = hpnb.search(partial(resumable.counted_steps, steps=600, pause=0.1), name=NAME,
                         store=lab_server.store.path, client=dask_client, metric="loss", trials=4, parallel=2,
                         seed=0, parameters={"x": {"min": 1.0, "max": 2.0}})
    yield search
    if search.is_live:
        search.stop()
    search.wait(patience(60))


def stored_state(search: hpnb.Search, trial_id: int) -> str | None:
    return {t.trial_id: t.state for t in search.store.trials(search.experiment_id)}.get(trial_id)


def checkpointed(search: hpnb.Search, trial_id: int) -> bool:
    trial = next((t for t in search.store.trials(search.experiment_id) if t.trial_id == trial_id), None)
    return trial is not None and trial.state == "RUNNING" and bool(trial.checkpoint)


def said(view, text: str) -> None:
    """Waits until the status line shows ``text`` (a driver's answer, or why nothing was sent)."""
    view.locator(".hpnb-command-status", has_text=text).wait_for()


def test_lab_controls_pause_resume_stop_a_trial_extend_and_set_parallel(lab_page, steered_search,
                                                                        save_screenshot):
    page, search = lab_page, steered_search
    wait_until(lambda: checkpointed(search, 0) and checkpointed(search, 1), 120, "trials 0, 1 checkpointed")
    view = open_experiment(page, NAME)
    status = view.locator(".hpnb-command-status")
    row = lambda trial_id: view.locator(f'.hpnb-leaderboard tbody tr[data-trial="{trial_id}"]')  # noqa: E731

    view.locator(".hpnb-controls").wait_for()  # shown once the view knows the search runs
    assert view.locator(".hpnb-pause-trial").is_disabled()  # no trial selected yet
    row(0).click()
    view.locator(".hpnb-selected-trial", has_text="trial 0 · running").wait_for()
    assert view.locator(".hpnb-resume-trial").is_disabled()  # it is not paused
    view.locator(".hpnb-pause-trial:enabled").click()
    said(view, "trial 0 pauses at its next decision point, from its latest checkpoint")
    wait_until(lambda: stored_state(search, 0) == "PAUSED", 60, "trial 0 paused")
    wait_until(lambda: stored_state(search, 2) == "RUNNING", 60, "trial 2 in trial 0's slot")

    view.locator(".hpnb-selected-trial", has_text="trial 0 · paused").wait_for()  # the view follows
    assert view.locator(".hpnb-pause-trial").is_disabled()
    view.locator(".hpnb-resume-trial:enabled").click()
    said(view, "trial 0 resumes in the next free slot")

    row(1).click()
    view.locator(".hpnb-selected-trial", has_text="trial 1 · running").wait_for()
    view.locator(".hpnb-stop-trial:enabled").click()
    said(view, "trial 1 is asked to stop")
    wait_until(lambda: stored_state(search, 1) == "STOPPED", 60, "trial 1 stopped")
    wait_until(lambda: stored_state(search, 0) == "RUNNING", 60, "trial 0 running again, in trial 1's slot")
    view.locator(".hpnb-selected-trial", has_text="trial 1 · stopped").wait_for()
    assert view.locator(".hpnb-stop-trial").is_disabled()

    view.locator(".hpnb-extend-by").fill("0")
    view.locator(".hpnb-extend").click()
    said(view, "extend: the number of trials to add must be at least 1 (got 0)")
    assert search.store.experiment(NAME).budget == 4  # nothing was sent
    view.locator(".hpnb-extend-by").fill("3")
    view.locator(".hpnb-extend").click()
    said(view, f"search '{NAME}' has a budget of 7 trials now (+3)")
    wait_until(lambda: search.store.experiment(NAME).budget == 7, 30, "the budget stored")
    view.locator(".hpnb-view-summary", has_text="/ 7").wait_for()

    assert view.locator(".hpnb-parallel-to").input_value() == "2"  # the parallelism in force
    view.locator(".hpnb-parallel-to").fill("1")
    view.locator(".hpnb-set-parallel").click()
    said(view, f"search '{NAME}' runs at most 1 trial at once now")
    wait_until(lambda: search.store.experiment(NAME).parallel == 1, 30, "parallel stored")
    path = save_screenshot(page, "lab-controls")
    if os.environ.get("HPNB_UPDATE_DOC_IMAGES"):
        shutil.copy(path, DOC_IMAGE)

    view.locator(".hpnb-stop").click()
    said(view, f"search '{NAME}' stops: running trials are asked to stop, no new one starts")
    assert search.wait(patience(120)).state == "STOPPED"
    view.locator(".hpnb-view-header .hpnb-badge", has_text="stopped").wait_for()
    view.locator(".hpnb-controls").wait_for(state="hidden")  # nothing to steer: the answer stays shown
    assert status.is_visible()
    sources = {e["data"]["source"] for e in search.store.events(search.experiment_id)
               if e["kind"] in ("pause_trial", "resume_trial", "stop_trial", "extend", "parallel", "stop")}
    assert sources == {"lab"}
    assert page.errors == []
