"""A search with constraints as the driver runs it, played by a scripted executor (no Dask)."""

from __future__ import annotations

import time
from typing import Any

from hpnb.core.summary import summarize
from hpnb.runner.ending import NEVER_REPORTED
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Done, ScriptedExecutor, Start
from tests.runner.test_driver_paths import build, events, run, short_graces

__all__ = ["short_graces"]

CONSTRAINTS = {"size": {"max": 30.0}}


def sized(task: TrialTask) -> list[Any]:
    """loss = 1 - x (bigger is better), size = 100 x; odd trials never report their size."""
    x = task.params["x"]
    metrics = {"loss": 1.0 - x} if task.trial_id % 2 else {"loss": 1.0 - x, "size": 100.0 * x}
    return [Start(), Done(metrics=metrics)]


def test_infeasible_trials_are_kept_never_best_and_a_missing_metric_is_said_once(store):
    driver = build(store, ScriptedExecutor(sized), strategy="tpe", trials=12, seed=0, constraints=CONSTRAINTS)
    trials = run(driver)
    assert driver.public.state == "COMPLETED" and len(trials) == 12
    assert {t.state for t in trials} == {"COMPLETED"}  # kept, whatever their feasibility
    said = events(driver, NEVER_REPORTED)
    assert len(said) == 1 and said[0]["metric"] == "size" and said[0]["trial"] % 2 == 1
    assert "never reported size" in said[0]["reason"]
    summary = summarize(store.experiment("paths"), trials, time.time())
    feasible = [t for t in trials if t.trial_id % 2 == 0 and t.params["x"] <= 0.3]
    assert summary.best_trial == min(feasible, key=lambda t: t.value).trial_id
    assert summary.infeasible == 12 - len(feasible)
    assert driver.strategy.constraint_count == 1  # tpe learns them


def test_a_strategy_that_ignores_constraints_runs_and_the_summary_still_applies_them(store):
    driver = build(store, ScriptedExecutor(sized), strategy="random", trials=6, seed=1,
                   constraints={"size": {"min": 200.0}})
    trials = run(driver)
    summary = summarize(store.experiment("paths"), trials, time.time())
    assert summary.best_trial is None and summary.infeasible == 6  # size <= 100 always
    assert driver.strategy.constraint_count == 0
    assert len(events(driver, NEVER_REPORTED)) == 1


def test_a_resumed_search_does_not_say_again_what_it_said(store):
    driver = build(store, ScriptedExecutor(sized), strategy="tpe", trials=4, seed=0, constraints=CONSTRAINTS)
    said = {"trial": 1, "metric": "size", "reason": "never reported size: ..."}
    store.add_event(driver.experiment_id, NEVER_REPORTED, said)  # as the run before the resume left it
    run(driver)
    assert events(driver, NEVER_REPORTED) == [said]
