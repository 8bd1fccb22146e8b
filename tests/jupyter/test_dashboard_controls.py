"""The dashboard's control bar on a stored search this kernel does not drive (a real store file):
Stop while a driver works on it, Resume whenever ``resume`` can continue it."""

from __future__ import annotations

from pathlib import Path

import pytest

import hpnb
from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.core.trial import ExperimentState
from hpnb.jupyter.dashboard.controls import Controls

SPEC = "metric: loss\ntrials: 2\nparameters:\n  x: {min: 0.0, max: 1.0}\n"


@pytest.fixture
def stored(tmp_path: Path) -> hpnb.Search:
    path = tmp_path / "hpnb.sqlite"
    with Store(path) as store:
        exp = store.create_experiment("done", parse_spec(SPEC).to_dict(), metric="loss", mode="min",
                                      strategy="random", budget=2, parallel=1)
        store.update_experiment(exp.id, state=ExperimentState.COMPLETED)
    return hpnb.load("done", store=path)


@pytest.mark.parametrize("state", list(ExperimentState))
def test_resume_shows_for_every_search_resume_can_continue(stored: hpnb.Search, state: ExperimentState):
    controls = Controls(stored, lambda: None, lambda: None, resume=lambda: stored)
    controls.update(state.value, live=False, selected_state=None)
    resumable = state in (ExperimentState.COMPLETED, ExperimentState.STOPPED, ExperimentState.FAILED,
                          ExperimentState.INTERRUPTED)  # a completed search can be extended
    assert (controls.resume.layout.display == "") is resumable
    assert controls.stop.disabled is (state is not ExperimentState.RUNNING)  # a driver takes commands
    assert controls.pause_trial.disabled and controls.stop_trial.disabled  # no trial selected


@pytest.mark.parametrize("driven_here", [True, False])
def test_trial_buttons_follow_the_selected_trial_wherever_the_search_runs(stored: hpnb.Search,
                                                                          driven_here: bool) -> None:
    controls = Controls(stored, lambda: 0, lambda: None)
    for trial, (stop, pause, resume) in {"RUNNING": (True, True, False), "PENDING": (True, True, False),
                                         "PAUSED": (True, False, True), "COMPLETED": (False, False, False)
                                         }.items():
        controls.update("RUNNING", live=driven_here, selected_state=trial)
        enabled = (not controls.stop_trial.disabled, not controls.pause_trial.disabled,
                   not controls.resume_trial.disabled)
        assert enabled == (stop, pause, resume), trial
    assert controls.resume.layout.display == "none"  # no resume callable while it runs
