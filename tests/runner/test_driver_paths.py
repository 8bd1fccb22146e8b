"""The driver's paths, played by a scripted executor: fast, deterministic, no Dask.

Each test builds a Driver as ``hpnb.api`` does (a real store, strategy and
early-stopping rule) on a :class:`ScriptedExecutor`, runs it to its end and reads
the store and what the executor was asked to do.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest

from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.core.store.records import TrialRecord
from hpnb.driving.driver_parts import make_stopping_rule, make_strategy
from hpnb.runner import driver as driver_module
from hpnb.runner.driver import Driver
from hpnb.runner.recovery import recover
from hpnb.runner.settling import MAX_LOST_QUEUED
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Call, Done, Hold, Lost, Report, ScriptedExecutor, Start
from hpnb.testing.driver_commands import send
from hpnb.testing.scripted_executor import checkpoint_of
from tests.store_checks import duplicate_results
from tests.waiting import patience, wait_until

TRACEBACK = 'Traceback (most recent call last):\n  File "train.py", line 3\nValueError: lr too high'
DIED = "the worker running this trial died"


@pytest.fixture(autouse=True)
def short_graces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Graces of a few tenths of a second, so waiting paths take little time."""
    monkeypatch.setattr(driver_module, "STOP_GRACE", 0.2)
    monkeypatch.setattr(driver_module, "TIMEOUT_GRACE", 0.1)
    monkeypatch.setattr(driver_module, "LATE_BATCH_GRACE", 0.3)


def never_called(**params: Any) -> None:
    raise AssertionError("a scripted executor never runs the objective")


def build(store: Store, executor: ScriptedExecutor, **spec: Any) -> Driver:
    """A driver of a search of ``x`` in [0, 1] minimising ``loss``, built as hpnb.api does."""
    fields = {"strategy": "random", "trials": 1, "parameters": {"x": {"min": 0.0, "max": 1.0}}, **spec}
    if "metrics" not in fields:
        fields.setdefault("metric", "loss")
    parsed = parse_spec(fields)
    record = store.create_experiment("paths", parsed.to_dict(), metric=parsed.metric, mode=parsed.mode,
                                     strategy=parsed.strategy.name, budget=parsed.trials,
                                     parallel=parsed.parallel)
    strategy, stopping_rule = make_strategy(parsed, record.budget), make_stopping_rule(parsed)
    return Driver(objective=never_called, spec=parsed, experiment_id=record.id, name=record.name,
                  store=store, executor=executor, strategy=strategy, stopping_rule=stopping_rule,
                  recovered=recover(store, record, strategy, stopping_rule), budget=record.budget,
                  parallel=parsed.parallel)


def run(driver: Driver, seconds: float = 5.0) -> list[TrialRecord]:
    """Run ``driver`` to its end; its trials by id. No attempt is left without an outcome."""
    driver.start()
    assert driver.ended.wait(seconds), "the driver did not end"
    assert isinstance(driver.executor, ScriptedExecutor)
    assert driver.executor.unfinished() == [], "the driver left attempts running"
    return sorted(driver.store.trials(driver.experiment_id), key=lambda t: t.trial_id)


def steps(driver: Driver, trial_id: int) -> list[int | None]:
    return [row.step for row in driver.store.results(driver.experiment_id, trial_id=trial_id)]


def events(driver: Driver, kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in driver.store.events(driver.experiment_id) if e["kind"] == kind]


def reports(*steps: int, checkpoint_at: int | None = None) -> list[Report]:
    """Reports of ``loss = 1 / (step + 1)`` at ``steps``, with a checkpoint ``b"at-N"`` at one."""
    return [Report(s, {"loss": 1.0 / (s + 1)}, f"at-{s}".encode() if s == checkpoint_at else None)
            for s in steps]


def q(*values: tuple[int, float, bytes | None]) -> list[Report]:
    """Reports of a population member: ``(step, q, checkpoint)`` each."""
    return [Report(step, {"q": value}, blob) for step, value, blob in values]


def pbt(store: Store, executor: ScriptedExecutor) -> Driver:
    """Population-based training of two members maximising ``q``, deciding every 2 steps."""
    toy = {"h0": {"min": 0.0, "max": 1.0}, "h1": {"min": 0.0, "max": 1.0}}
    return build(store, executor, metric="q", mode="max", trials=2, parameters=toy,
                 strategy={"name": "pbt", "population": 2, "ready": 2})


def test_a_completed_trial(store):
    executor = ScriptedExecutor({0: [[Start("w1"), *reports(0, 1), Done(metrics={"loss": 0.25})]]})
    driver = build(store, executor)
    [trial] = run(driver)
    assert driver.public.state == "COMPLETED" and store.experiment("paths").state == "COMPLETED"
    assert (trial.state, trial.value, trial.worker, trial.retries) == ("COMPLETED", 0.25, "w1", 0)
    assert steps(driver, 0) == [0, 1]
    assert [t.attempt for t in executor.submits] == [0] and executor.closed


def test_a_failed_trial_keeps_its_traceback(store):
    executor = ScriptedExecutor({0: [[Start(), *reports(0), Done("failed", error=TRACEBACK)]]})
    driver = build(store, executor)
    [trial] = run(driver)
    assert (trial.state, trial.error, trial.value, trial.retries) == ("FAILED", TRACEBACK, None, 0)
    assert len(executor.submits) == 1  # an error of the objective is not retried
    assert driver.public.message == f"every trial failed (1); the first error was:\n{TRACEBACK}"


def test_a_retry_after_a_lost_worker_continues_from_the_checkpoint(store):
    executor = ScriptedExecutor({0: [
        [Start("w1"), *reports(0, 1, 2, checkpoint_at=1), Lost(DIED)],
        [Start("w2"), *reports(2, 3), Done()],  # runs step 2 again from the checkpoint of step 1
    ]})
    driver = build(store, executor)
    [trial] = run(driver)
    first, retry = executor.tasks(0)
    assert (first.checkpoint, retry.attempt, checkpoint_of(retry)) == (None, 1, b"at-1")
    assert (trial.state, trial.retries, trial.worker, trial.value) == ("COMPLETED", 1, "w2", 0.25)
    assert steps(driver, 0) == [0, 1, 2, 3]  # step 2 once
    assert events(driver, "retry") == [{"trial": 0, "reason": DIED, "attempt": 1, "from_step": 2}]


def test_a_scheduler_rerun_of_an_attempt_is_stopped_and_retried_from_the_checkpoint(store):
    # the worker dies after step 1 (checkpointed); a scheduler with allowed-failures > 0 starts the
    # same attempt again on another worker, from step 0: hpnb drops that run and retries instead
    executor = ScriptedExecutor({0: [
        [Start("w1"), *reports(0, 1, checkpoint_at=1), Start("w2"), *reports(0, 1), Done()],
        [Start("w3"), *reports(2, 3), Done()],
    ]})
    driver = build(store, executor)
    [trial] = run(driver)
    first, retry = executor.tasks(0)
    assert first.checkpoint is None
    assert (retry.attempt, checkpoint_of(retry)) == (1, b"at-1")
    assert (trial.state, trial.retries, trial.worker) == ("COMPLETED", 1, "w3")
    assert steps(driver, 0) == [0, 1, 2, 3]  # the re-run's steps 0 and 1 are not stored again
    [retried] = events(driver, "retry")
    assert "started it again" in retried["reason"] and retried["from_step"] == 1


def test_an_attempt_lost_while_queued_runs_again_without_counting_a_retry(store):
    def script(task: TrialTask) -> list[Any]:
        return [Lost(DIED)] if task.attempt < MAX_LOST_QUEUED else [Start(), *reports(0), Done()]

    executor = ScriptedExecutor(script)
    driver = build(store, executor)
    [trial] = run(driver)
    assert (trial.state, trial.retries) == ("COMPLETED", 0)
    assert [t.attempt for t in executor.submits] == list(range(MAX_LOST_QUEUED + 1))
    assert events(driver, "retry") == []


def test_an_attempt_always_lost_while_queued_uses_its_retries_then_fails(store):
    executor = ScriptedExecutor(lambda task: [Lost(DIED)])
    driver = build(store, executor, retries=2)
    [trial] = run(driver)
    assert (trial.state, trial.retries) == ("FAILED", 2)
    assert trial.error == f"{DIED} (after 2 retries)"
    # MAX_LOST_QUEUED losses are free; after that each loss is a retry, and the last one ends it
    assert len(executor.submits) == MAX_LOST_QUEUED + 2 + 1


def test_late_report_batches_are_stored_before_the_trial_ends(store):
    executor = ScriptedExecutor({0: [[Start(), *reports(0), Done(), *reports(1, 2)]]})
    driver = build(store, executor)
    [trial] = run(driver)
    assert steps(driver, 0) == [0, 1, 2]
    assert (trial.state, trial.last_step, trial.value) == ("COMPLETED", 2, pytest.approx(1 / 3))


def test_a_late_batch_that_never_comes_is_waited_for_then_given_up(store):
    executor = ScriptedExecutor({0: [[Start(), *reports(0), Done(last_seq=2)]]})
    driver = build(store, executor)
    began = time.monotonic()
    [trial] = run(driver)
    assert time.monotonic() - began >= driver_module.LATE_BATCH_GRACE
    assert (trial.state, trial.last_step) == ("COMPLETED", 0)
    assert steps(driver, 0) == [0]


def test_a_trial_that_ignores_a_stop_is_abandoned_and_ends_stopped(store):
    user_stops = Call(lambda: send(driver, "stop_trial", 0))
    executor = ScriptedExecutor({0: [[Start("w1"), *reports(0), user_stops, Hold(ignore_stop=True)]]})
    driver = build(store, executor)
    began = time.monotonic()
    [trial] = run(driver)
    assert time.monotonic() - began >= driver_module.STOP_GRACE
    assert (executor.stops, executor.abandons) == ([(0, 0)], [(0, 0)])
    assert (trial.state, trial.stop_reason, trial.last_step) == ("STOPPED", "stopped by the user", 0)
    assert executor.stuck_workers() == ["w1"]
    assert [e["what"] for e in events(driver, "abandoned")] == [driver.public.message]
    assert "w1 holds it" in (driver.public.message or "")


def test_a_trial_over_its_time_limit_is_retried_then_fails(store):
    executor = ScriptedExecutor({0: [
        [Start(), *reports(0), Hold()],  # answers the stop: retried, as retries remain
        [Start(), Hold(ignore_stop=True)],  # does not: abandoned after TIMEOUT_GRACE
    ]})
    driver = build(store, executor, trial_timeout=0.2, retries=1)
    [trial] = run(driver)
    limit = "ran longer than 0.2s (trial_timeout)"
    assert [e["reason"] for e in events(driver, "retry")] == [limit]
    assert (trial.state, trial.retries, trial.error) == ("FAILED", 1, f"{limit} (after 1 retries)")
    assert (executor.stops, executor.abandons) == ([(0, 0), (0, 1)], [(0, 1)])
    assert driver.public.state == "FAILED"


def test_the_search_time_limit_stops_the_search(store):
    def script(task: TrialTask) -> list[Any]:
        return [Hold()] if task.trial_id == 2 else [Start(), *reports(0), Hold()]  # trial 2 stays queued

    executor = ScriptedExecutor(script, slots=2)
    driver = build(store, executor, trials=3, parallel=2, timeout=0.3)
    trials = run(driver)
    assert driver.public.state == "STOPPED" and "time limit" in (driver.public.message or "")
    assert [t.state for t in trials] == ["STOPPED", "STOPPED", "PENDING"]
    assert sorted(executor.stops) == [(0, 0), (1, 0)] and (2, 0) in executor.cancels
    assert store.experiment("paths").state == "STOPPED"


def test_a_user_stop_stops_the_search(store):
    user_stops = Call(lambda: send(driver, "stop"))
    executor = ScriptedExecutor({0: [[Start(), *reports(0), user_stops, Hold()]], 1: [[Hold()]]})
    driver = build(store, executor, trials=3)  # trial 1 waits queued on the busy slot
    trials = run(driver)
    assert (driver.public.state, driver.public.message) == ("STOPPED", "stopped by the user")
    assert [t.state for t in trials] == ["STOPPED", "PENDING"]
    assert (executor.stops, executor.cancels) == ([(0, 0)], [(1, 0)])


def test_every_trial_failing_fails_the_search_with_the_first_error(store):
    executor = ScriptedExecutor(lambda task: [Start(), Done("failed", error=f"error of {task.trial_id}")])
    driver = build(store, executor, trials=3)
    trials = run(driver)
    assert [t.state for t in trials] == ["FAILED"] * 3
    assert driver.public.state == "FAILED"
    assert driver.public.message == "every trial failed (3); the first error was:\nerror of 0"


def test_failures_in_a_row_stop_the_search(store):
    executor = ScriptedExecutor(lambda task: [Start(), Done("failed", error=f"error of {task.trial_id}")])
    driver = build(store, executor, trials=6, max_failures=2)
    trials = run(driver)
    assert driver.public.state == "FAILED" and len(trials) == 2
    assert driver.public.message == "2 trials failed in a row; the first error was:\nerror of 0"


def test_a_failing_strategy_fails_the_search_and_leaves_no_trial_running(store, monkeypatch):
    executor = ScriptedExecutor({0: [[Start(), *reports(0), Hold()]]})
    driver = build(store, executor)

    def broken(trial_id: int, step: int, value: float) -> None:
        raise RuntimeError("strategy bug")

    monkeypatch.setattr(driver.strategy, "report", broken)
    [trial] = run(driver)
    assert driver.public.state == "FAILED"
    assert (driver.public.message or "").startswith("the driver failed: RuntimeError: strategy bug")
    assert trial.state == "PENDING"  # run again from its checkpoint on resume
    assert (executor.stops, executor.cancels, executor.closed) == ([(0, 0)], [(0, 0)], True)


def test_an_exploit_restarts_a_member_from_the_donors_checkpoint(store):
    executor = ScriptedExecutor({
        0: [[Start(), *q((1, 1.0, b"m0-1"), (2, 1.1, b"m0-2")), Done()]],
        1: [[Start(), *q((1, 0.1, b"m1-1"), (2, 0.2, b"m1-2")), Hold()],  # worse: copies member 0
            [Start(), *q((3, 1.15, b"m1-3"), (4, 1.16, b"m1-4")), Done()]],
    }, slots=2)
    driver = pbt(store, executor)
    trials = run(driver)
    before, after = executor.tasks(1)
    assert (after.attempt, checkpoint_of(after)) == (1, b"m0-2")
    assert after.params != before.params and trials[1].params == after.params
    assert (trials[1].parent, trials[1].state, trials[1].retries) == (0, "COMPLETED", 0)
    assert (1, 0, 2, "exploit") in executor.verdicts  # its attempt ended at the very step it decided
    assert [(e["member"], e["donor"], e["donor_step"]) for e in events(driver, "exploit")] == [(1, 0, 2)]
    assert steps(driver, 1) == [1, 2, 3, 4]


def test_no_step_is_stored_twice_across_retries(store):
    executor = ScriptedExecutor({0: [
        [Start(), *reports(0, 1, 2, 3), Lost(DIED)],  # no checkpoint: retries start over
        [Start(), *reports(0, 1, 2, 3, 4, 5), Lost(DIED)],
        [Start(), *reports(*range(7)), Done()],
    ]})
    driver = build(store, executor, retries=2)
    [trial] = run(driver)
    assert (trial.state, trial.retries, trial.last_step) == ("COMPLETED", 2, 6)
    assert steps(driver, 0) == list(range(7))
    assert duplicate_results(store.path) == []


def test_an_exploit_decided_on_a_late_batch_leaves_the_search_whole(store):
    executor = ScriptedExecutor({
        0: [[Start(), *q((1, 1.0, b"m0-1"), (2, 1.1, b"m0-2")), Done()]],
        # member 1 returns before its batch of step 2 arrives; that batch makes it copy member 0
        1: [[Start(), *q((1, 0.1, b"m1-1")), Done(), *q((2, 0.2, b"m1-2"))],
            [Start(), *q((3, 1.15, b"m1-3"), (4, 1.16, b"m1-4")), Done()]],
    }, slots=2)
    driver = pbt(store, executor)
    trials = run(driver)
    assert driver.public.state == "COMPLETED", driver.public.message
    assert [t.state for t in trials] == ["COMPLETED", "COMPLETED"]


def test_an_exploit_from_a_donor_behind_the_member_stores_no_step_twice(store):
    executor = ScriptedExecutor({
        0: [[Start(), *q((1, 1.0, b"m0-1"), (2, 1.1, b"m0-2")), Done()]],
        # member 1 leads at step 2, falls behind at step 4: it copies member 0's checkpoint of step 2
        1: [[Start(), *q((1, 1.5, None), (2, 1.5, None), (3, 0.1, None), (4, 0.1, None)), Hold()],
            [Start(), *q((3, 1.15, b"m1-3"), (4, 1.16, b"m1-4")), Done()]],
    }, slots=2)
    driver = pbt(store, executor)
    trials = run(driver)
    assert [(e["member"], e["step"], e["donor_step"]) for e in events(driver, "exploit")] == [(1, 4, 2)]
    assert trials[1].state == "COMPLETED"
    assert duplicate_results(store.path) == []


def test_a_stop_while_late_batches_are_awaited_abandons_nothing(store, monkeypatch):
    monkeypatch.setattr(driver_module, "LATE_BATCH_GRACE", driver_module.STOP_GRACE + 0.3)
    user_stops = Call(lambda: send(driver, "stop_trial", 0))
    executor = ScriptedExecutor({0: [[Start(), *reports(0), Done(last_seq=2), user_stops]]})
    driver = build(store, executor)
    [trial] = run(driver)
    assert trial.state == "COMPLETED"  # it returned before the stop
    assert executor.abandons == []  # its thread returned: there is nothing to give up on


def test_no_worker_slot_is_said_with_its_time_then_interrupts_the_search_with_its_trials_pending(
        store, monkeypatch):
    from hpnb.runner import worker_wait

    monkeypatch.setattr(worker_wait, "WAIT_GRACE", 0.2)
    monkeypatch.setattr(driver_module, "CAPACITY_CHECK", 0.05)
    said: list[str | None] = []
    executor = ScriptedExecutor(lambda task: [Hold()], slots=0)  # the cluster has no worker
    driver = build(store, executor, trials=3, parallel=2, resources={"wait_for_workers": 1})

    def watch() -> None:
        while not driver.ended.is_set():
            said.append(store.experiment("paths").message)
            time.sleep(0.05)

    driver.start()
    watcher = threading.Thread(target=watch)
    watcher.start()
    assert driver.ended.wait(patience(10))
    watcher.join()
    waiting = [text for text in said if text]
    assert waiting and re.fullmatch(r"waiting for workers: none since \d\d:\d\d", waiting[0])
    record = store.experiment("paths")
    assert record.state == "INTERRUPTED"
    assert record.message.startswith(waiting[0]) and "resources.wait_for_workers" in record.message
    assert {t.state for t in store.trials(driver.experiment_id)} == {"PENDING"}  # a resume runs them


def test_workers_coming_back_clear_the_waiting_message(store, monkeypatch):
    from hpnb.runner import worker_wait

    monkeypatch.setattr(worker_wait, "WAIT_GRACE", 0.1)
    monkeypatch.setattr(driver_module, "CAPACITY_CHECK", 0.05)
    executor = ScriptedExecutor(lambda task: [Start(), Hold()], slots=0)
    driver = build(store, executor, trials=1)
    seen: list[str | None] = []

    def workers_come_back() -> None:
        seen.append(wait_until(lambda: store.experiment("paths").message, timeout=10))
        executor.slots = 1
        wait_until(lambda: store.experiment("paths").message is None, timeout=10)
        seen.append(store.experiment("paths").message)
        send(driver, "stop")

    helper = threading.Thread(target=workers_come_back)
    driver.start()
    helper.start()
    assert driver.ended.wait(patience(15))
    helper.join()
    assert seen[0].startswith("waiting for workers: none since") and seen[1] is None
    kinds = [e["kind"] for e in store.events(driver.experiment_id)]
    assert kinds.index("waiting_for_workers") < kinds.index("workers_back")


def test_a_lost_worker_is_looked_for_at_once_and_its_return_used_before_the_next_regular_check(
        store, monkeypatch):
    monkeypatch.setattr(driver_module, "CAPACITY_CHECK", 30.0)  # no regular check within the test
    monkeypatch.setattr(driver_module, "CAPACITY_RECHECK", 0.02)
    executor = ScriptedExecutor({
        0: [[Start("w1"), Call(lambda: setattr(executor, "slots", 1)), Lost(DIED)],  # w1 dies with it
            [Start("w1"), Report(0, {"loss": 0.5}), Done()]],
        1: [[Start("w2"), Hold()]],
    }, slots=2)
    # a strategy that learns from results: trials are not queued beyond the slots
    driver = build(store, executor, trials=2, strategy="tpe")
    driver.start()
    # the loss had the driver look at the cluster: one slot, so the retry waits for a worker
    wait_until(lambda: driver.public.parallel == 1, timeout=10)
    assert len(executor.tasks(0)) == 1
    executor.slots = 2  # the worker is back
    wait_until(lambda: len(executor.tasks(0)) == 2, timeout=10)
    assert driver.public.parallel == 2
    send(driver, "stop")
    assert driver.ended.wait(patience(10))
    trials = sorted(store.trials(driver.experiment_id), key=lambda t: t.trial_id)
    assert (trials[0].state, trials[0].retries) == ("COMPLETED", 1)
