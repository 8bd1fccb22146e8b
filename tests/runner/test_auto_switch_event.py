"""A search run by ``auto`` that switches from the Gaussian process to TPE records the switch as an
event of the search, and the saved state says what runs now (scripted executor, real store)."""

from __future__ import annotations

from typing import Any

import pytest

from hpnb.core.summary import strategy_choice
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Done, ScriptedExecutor, Start
from tests.runner.test_driver_paths import build, events, run


def _script(task: TrialTask) -> list[Any]:
    return [Start(), Done(metrics={"loss": (float(task.params["x"]) - 0.3) ** 2})]


def test_the_switch_to_tpe_is_an_event_of_the_search(store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpnb.core.strategies.auto_choice.GP_TRIALS", 4)
    driver = build(store, ScriptedExecutor(_script), strategy="auto", trials=8, seed=0)
    trials = run(driver, seconds=60.0)
    assert [t.state for t in trials] == ["COMPLETED"] * 8
    switched = events(driver, "strategy_switched")
    assert [(e["from"], e["to"], e["trial"]) for e in switched] == [("gp", "tpe", 4)]
    record = store.experiment("paths")
    chose = "gp: 8 trials, 1 continuous parameter; tpe from trial 4; now tpe"
    assert strategy_choice(record.strategy_state) == chose
