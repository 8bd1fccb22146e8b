"""Whole searches as the driver runs them, played by a scripted executor: budgets, commands,
failures, early-stopping rules, several objectives, enqueued configurations. Fast, no Dask.

The searches on a real cluster (test_search_local.py and the others marked slow) keep what only
Dask shows: the messages of real worker processes, stop flags reaching their threads, lost workers.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from hpnb.core.trial import TrialState
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Call, Done, Hold, Report, ScriptedExecutor, Start
from hpnb.testing.driver_commands import send
from tests.runner.test_driver_paths import TRACEBACK, build, events, reports, run, short_graces, steps

__all__ = ["short_graces"]  # the graces fixture applies here too

COMPLETED, FAILED, STOPPED = TrialState.COMPLETED.value, TrialState.FAILED.value, TrialState.STOPPED.value


def fails_when_big(task: TrialTask) -> list[Any]:
    """A trial that fails with a traceback when ``x`` > 0.5, else reports and completes."""
    if task.params["x"] > 0.5:
        return [Start(), Done("failed", error=f"{TRACEBACK} (x={task.params['x']})")]
    return [Start(), *reports(0, 1), Done(metrics={"loss": task.params["x"]})]


def test_a_failing_trial_is_recorded_and_the_search_goes_on(store):
    driver = build(store, ScriptedExecutor(fails_when_big), trials=10, max_failures=10, seed=0)
    trials = run(driver)
    assert driver.public.state == "COMPLETED" and len(trials) == 10
    assert {t.params["x"] > 0.5 for t in trials} == {True, False}  # seed 0 draws both
    for trial in trials:
        if trial.params["x"] > 0.5:
            assert (trial.state, trial.value) == (FAILED, None)
            assert trial.error == f"{TRACEBACK} (x={trial.params['x']})"
        else:
            assert (trial.state, trial.value) == (COMPLETED, trial.params["x"])


@pytest.mark.parametrize(("metrics", "reason"), [
    ({"accuracy": 0.9}, "did not report the target metric 'loss'"),
    ({"loss": math.nan}, "is not a finite number"),
])
def test_a_missing_or_non_finite_target_fails_the_trial(store, metrics, reason):
    executor = ScriptedExecutor(lambda task: [Start(), Done(metrics=metrics)])
    driver = build(store, executor, trials=2, max_failures=10)
    trials = run(driver)
    assert [t.state for t in trials] == [FAILED, FAILED]
    assert all(reason in (t.error or "") for t in trials), [t.error for t in trials]


def test_extend_a_running_search_runs_more_trials(store):
    def script(task: TrialTask) -> list[Any]:
        extend = [Call(lambda: send(driver, "extend", 2))] if task.trial_id == 0 else []
        return [Start(), *extend, *reports(0), Done()]

    driver = build(store, ScriptedExecutor(script), trials=2)
    trials = run(driver)
    assert [t.trial_id for t in trials] == [0, 1, 2, 3]
    assert {t.state for t in trials} == {COMPLETED}
    assert store.experiment("paths").budget == 4
    assert events(driver, "extend") == [{"value": 2, "source": "test"}]


def test_set_parallel_takes_back_queued_attempts_and_runs_one_at_a_time(store):
    in_flight: list[tuple[int, int, int]] = []

    def script(task: TrialTask) -> list[Any]:
        seen = Call(lambda: in_flight.append((task.trial_id, task.attempt, len(driver.context.running))))
        lower = [Call(lambda: send(driver, "parallel", 1))] if task.trial_id == 0 else []
        return [seen, Start(), *lower, *reports(0), Done()]

    executor = ScriptedExecutor(script, slots=2)
    driver = build(store, executor, trials=4, parallel=2)
    trials = run(driver)
    assert {t.state for t in trials} == {COMPLETED}
    # all four were queued at once on the 2 slots; the command took back the three not yet begun
    assert [(t, a) for t, a, _ in in_flight[:4]] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert sorted(executor.cancels) == [(1, 0), (2, 0), (3, 0)]
    later = in_flight[4:]
    assert sorted((t, a) for t, a, _ in later) == [(1, 1), (2, 1), (3, 1)]
    assert all(running == 1 for _, _, running in later)  # each alone: parallel is 1
    assert store.experiment("paths").parallel == 1


def test_stop_trial_stops_that_trial_only(store):
    stop_0 = Call(lambda: send(driver, "stop_trial", 0))
    executor = ScriptedExecutor({0: [[Start(), *reports(0), stop_0, Hold()]],
                                 1: [[Start(), *reports(0, 1), Done()]]}, slots=2)
    driver = build(store, executor, trials=2, parallel=2)
    first, second = run(driver)
    assert (first.state, first.stop_reason, second.state) == (STOPPED, "stopped by the user", COMPLETED)
    assert executor.stops == [(0, 0)] and driver.public.state == "COMPLETED"


def curve(rate: float, steps: int = 27) -> list[Report]:
    """A loss decaying towards ``1 - rate``: better rates are better from the first step."""
    return [Report(step, {"loss": (1 - rate) + rate * 0.9 ** step}) for step in range(1, steps + 1)]


@pytest.mark.parametrize("rule", [
    {"rule": "median", "grace": 3, "min_trials": 2},
    {"rule": "asha", "grace": 3, "reduction": 3, "max_t": 27},
    {"rule": "hyperband", "grace": 3, "reduction": 3, "max_t": 27},
])
def test_each_rule_stops_bad_trials_and_keeps_their_results(store, rule):
    executor = ScriptedExecutor(lambda task: [Start(), *curve(task.params["rate"]), Done()], slots=2)
    driver = build(store, executor, trials=12, parallel=2, seed=1,
                   parameters={"rate": {"min": 0.0, "max": 1.0}}, early_stopping=rule)
    trials = run(driver)
    assert driver.public.state == "COMPLETED" and len(trials) == 12  # stopped trials count in the budget
    stopped = [t for t in trials if t.state == STOPPED]
    assert stopped, "no trial was stopped early"
    for trial in stopped:
        assert trial.stop_reason.startswith(f"early stopping ({rule['rule']})")
        assert trial.last_step < 27 and steps(driver, trial.trial_id)[-1] == trial.last_step
    assert min(trials, key=lambda t: t.value).state == COMPLETED


def test_max_t_ends_trials_at_their_step_budget(store):
    executor = ScriptedExecutor(lambda task: [Start(), *curve(task.params["rate"], steps=60), Done()])
    driver = build(store, executor, trials=2, parameters={"rate": {"min": 0.0, "max": 1.0}},
                   early_stopping={"rule": "none", "max_t": 10})
    trials = run(driver)
    assert [(t.state, t.last_step) for t in trials] == [(COMPLETED, 10), (COMPLETED, 10)]
    assert all(t.stop_reason == "reached its step budget (max_t=10)" for t in trials)


TWO = {"metrics": [{"name": "val_loss", "mode": "min"}, {"name": "latency_ms", "mode": "min"}]}


@pytest.mark.parametrize(("metrics", "reason"), [
    ({"val_loss": 0.3}, "did not report the target metric 'latency_ms'"),
    ({"val_loss": 0.3, "latency_ms": math.inf}, "'latency_ms'"),
])
def test_a_trial_missing_an_objective_fails_and_says_which(store, metrics, reason):
    executor = ScriptedExecutor(lambda task: [Start(), Done(metrics=metrics)])
    driver = build(store, executor, **TWO, trials=2, max_failures=5)
    trials = run(driver)
    assert [t.state for t in trials] == [FAILED, FAILED]
    assert all(reason in (t.error or "") for t in trials), [t.error for t in trials]


def test_several_objectives_complete_with_every_value_and_rules_judge_the_first(store):
    def script(task: TrialTask) -> list[Any]:
        bad = task.trial_id % 2  # odd trials have a val_loss ten times worse
        return [Start(), *[Report(s, {"val_loss": (1 + 9 * bad) / s, "latency_ms": 5.0 - bad})
                           for s in range(1, 10)], Done()]

    driver = build(store, ScriptedExecutor(script), **TWO, trials=6,
                   early_stopping={"rule": "median", "grace": 2, "min_trials": 1})
    trials = run(driver)
    assert all(t.metrics.keys() >= {"val_loss", "latency_ms"} for t in trials)
    assert {t.state for t in trials if t.trial_id % 2 == 0} == {COMPLETED}
    assert {t.state for t in trials if t.trial_id % 2 == 1} == {STOPPED}  # judged by val_loss


def test_enqueued_configurations_are_the_first_trials_and_the_rest_is_drawn(store):
    space = {"x": {"min": 0.0, "max": 1.0}, "y": {"type": "int", "min": 0, "max": 2}}
    executor = ScriptedExecutor(lambda task: [Start(), *reports(0), Done()])
    driver = build(store, executor, strategy="tpe", seed=0, parameters=space, trials=6,
                   enqueue=[{"x": 0.3, "y": 0}, {"x": 0.9}, {"y": 2}])
    trials = run(driver)
    assert [t.trial_id for t in trials] == list(range(6)) and {t.state for t in trials} == {COMPLETED}
    assert trials[0].params == {"x": 0.3, "y": 0}
    assert trials[1].params["x"] == 0.9 and trials[1].params["y"] in (0, 1, 2)
    assert trials[2].params["y"] == 2 and 0.0 <= trials[2].params["x"] <= 1.0
    assert [t.params for t in executor.submits[:3]] == [t.params for t in trials[:3]]


def test_the_running_best_follows_the_direction_of_the_target(store):
    values = [0.5, 0.9, 0.7]
    executor = ScriptedExecutor(lambda task: [Start(), *[Report(s, {"acc": v}) for s, v in enumerate(values)],
                                              Done(metrics={"acc": 0.6})])
    driver = build(store, executor, metric="acc", mode="max")
    [trial] = run(driver)
    assert (trial.value, trial.best) == (0.6, 0.9)

