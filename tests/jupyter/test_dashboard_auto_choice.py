"""The cell dashboard's header says what ``auto`` chose and why, and its recent actions say when it
switched, from a search run through the real driver into a real store (scripted executor)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hpnb.core.store import Store
from hpnb.core.summary import summarize
from hpnb.jupyter.dashboard.widgets import events_html, title_html
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Done, ScriptedExecutor, Start
from tests.runner.test_driver_paths import build, run


def _script(task: TrialTask) -> list[Any]:
    return [Start(), Done(metrics={"loss": (float(task.params["x"]) - 0.3) ** 2})]


def test_the_header_names_auto_s_choice_and_the_actions_its_switch(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpnb.core.strategies.auto_choice.GP_TRIALS", 4)
    store = Store(tmp_path / "hpnb.sqlite")
    try:
        driver = build(store, ScriptedExecutor(_script), strategy="auto", trials=8, seed=0)
        trials = run(driver, seconds=60.0)
        summary = summarize(store.experiment("paths"), trials, time.time())
        events = store.events(driver.experiment_id)
    finally:
        store.close()
    chose = "auto \u2192 gp: 8 trials, 1 continuous parameter; tpe from trial 4; now tpe"
    assert chose in title_html(summary)
    assert "auto switched from gp to tpe at trial 4" in events_html(events)


def test_a_strategy_that_does_not_choose_is_named_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "hpnb.sqlite")
    try:
        driver = build(store, ScriptedExecutor(_script), strategy="random", trials=2, seed=0)
        summary = summarize(store.experiment("paths"), run(driver, seconds=60.0), time.time())
    finally:
        store.close()
    assert "&middot; random &middot;" in title_html(summary)
    assert "\u2192" not in title_html(summary)
