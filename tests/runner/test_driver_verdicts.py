"""Verdicts at decision points, pauses and PBT time-sharing, played by a scripted executor.

A scripted attempt waits at each decision point of its task until the driver gives
its verdict, as a real trial does, so these tests see exactly which steps ran.
"""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import pytest

from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.driving.driver_parts import make_stopping_rule, make_strategy
from hpnb.runner.driver import Driver
from hpnb.runner.recovery import recover
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Call, Done, Report, ScriptedExecutor, Start, pbt_toy
from hpnb.testing.driver_commands import send
from hpnb.testing.scripted_executor import checkpoint_of
from tests.runner.test_driver_paths import build, events, never_called, reports, run, short_graces, steps

__all__ = ["short_graces"]  # the graces fixture applies here too


def test_an_asha_stop_lands_at_the_rung_it_was_decided_at(store):
    executor = ScriptedExecutor({
        0: [[Start(), *[Report(s, {"loss": 0.1}) for s in range(1, 7)], Done()]],
        1: [[Start(), *[Report(s, {"loss": 0.5}) for s in range(1, 7)], Done()]],
    })
    driver = build(store, executor, trials=2,
                   early_stopping={"rule": "asha", "grace": 1, "reduction": 2, "max_t": 4})
    first, second = run(driver)
    assert steps(driver, 1) == [1]  # stopped at rung 1: not one step more
    assert (second.state, second.stop_reason) == ("STOPPED", "early stopping (asha) at step 1")
    assert steps(driver, 0) == [1, 2, 3, 4] and first.state == "COMPLETED"  # max_t ends it exactly
    assert (1, 0, 1, "stop") in executor.verdicts and (0, 0, 4, "stop") in executor.verdicts
    assert executor.stops == []  # no stop flag needed: every stop came as a verdict


def test_only_decision_points_wait_for_a_verdict(store):
    executor = ScriptedExecutor({0: [[Start(), *reports(*range(1, 10)), Done()]]})
    driver = build(store, executor, early_stopping={"rule": "asha", "grace": 2, "reduction": 3, "max_t": 9})
    run(driver)
    assert [step for _, _, step, _ in executor.verdicts] == [2, 6, 9]


def paused_then_resumed(driver_ref: list[Driver]) -> dict[int, list[list[Any]]]:
    pause = Call(lambda: send(driver_ref[0], "pause_trial", 0))
    return {
        0: [[Start("w1"), *reports(1, checkpoint_at=1), pause, *reports(2, 3, checkpoint_at=2), Done()],
            [Start("w2"), *reports(3), Done()]],
        1: [[Start("w1"), *reports(1, 2, 3), Done()]],
    }


def test_a_user_pause_frees_the_slot_and_resumes_from_the_checkpoint(store):
    ref: list[Driver] = []
    executor = ScriptedExecutor(paused_then_resumed(ref))
    driver = build(store, executor, trials=2,
                   early_stopping={"rule": "median", "every": 1, "min_trials": 99})
    ref.append(driver)
    first, second = run(driver)
    assert [(t.trial_id, t.attempt) for t in executor.submits] == [(0, 0), (1, 0), (0, 1)]
    resumed = executor.tasks(0)[1]
    assert (checkpoint_of(resumed), resumed.start_step) == (b"at-2", 2)
    assert (0, 0, 2, "pause") in executor.verdicts
    assert steps(driver, 0) == [1, 2, 3] and first.state == "COMPLETED" and first.retries == 0
    assert [e["trial"] for e in events(driver, "pause")] == [0]
    assert [e["trial"] for e in events(driver, "resume")] == [0]
    assert second.state == "COMPLETED"


def test_a_pause_without_a_checkpoint_is_refused_and_the_trial_goes_on(store):
    ref: list[Driver] = []
    pause = Call(lambda: send(ref[0], "pause_trial", 0))
    executor = ScriptedExecutor({0: [[Start(), *reports(1), pause, *reports(2, 3), Done()]]})
    driver = build(store, executor, early_stopping={"rule": "median", "every": 1, "min_trials": 99})
    ref.append(driver)
    [trial] = run(driver)
    assert trial.state == "COMPLETED" and steps(driver, 0) == [1, 2, 3]
    [refused] = events(driver, "pause_refused")
    assert "has no checkpoint yet" in refused["reason"]


def test_a_paused_trial_is_resumed_by_the_user_before_new_trials(store):
    ref: list[Driver] = []
    pause = Call(lambda: send(ref[0], "pause_trial", 0))
    resume = Call(lambda: send(ref[0], "resume_trial", 0))
    executor = ScriptedExecutor({
        0: [[Start(), *reports(1), pause, *reports(2, checkpoint_at=2), Done()],
            [Start(), *reports(3), Done()]],
        1: [[Start(), resume, *reports(1, 2), Done()]],
        2: [[Start(), *reports(1), Done()]],
    }, slots=2)
    driver = build(store, executor, trials=3, parallel=1,  # one at a time, nothing queued ahead
                   early_stopping={"rule": "median", "every": 1, "min_trials": 99})
    ref.append(driver)
    run(driver)
    assert [(t.trial_id, t.attempt) for t in executor.submits] == [(0, 0), (1, 0), (0, 1), (2, 0)]


def toy_member(max_steps: int):
    """A PBT toy member as a script: from its checkpoint's theta (or the start), one report a step."""
    def script(task: TrialTask) -> list[Any]:
        theta = pickle.loads(checkpoint_of(task)) if task.checkpoint else pbt_toy.START
        played: list[Any] = [Start(f"w{task.trial_id % 2}")]
        for step in range((task.start_step or 0) + 1, max_steps + 1):
            theta = pbt_toy.surrogate_step(theta, task.params["h0"], task.params["h1"])
            played.append(Report(step, {"q": pbt_toy.objective(theta)}, pickle.dumps(theta)))
        return [*played, Done()]
    return script


@pytest.mark.parametrize("synch", [False, True])
def test_a_population_larger_than_the_cluster_takes_turns(store, synch):
    population, ready, max_steps = 6, 4, 20
    executor = ScriptedExecutor(toy_member(max_steps), slots=2)
    toy = {"h0": {"min": 0.0, "max": 1.0}, "h1": {"min": 0.0, "max": 1.0}}
    driver = build(store, executor, metric="q", mode="max", trials=population, parameters=toy, parallel=2,
                   strategy={"name": "pbt", "population": population, "ready": ready,
                             "max_steps": max_steps, "synch": synch}, seed=3)
    trials = run(driver, seconds=30)
    assert [t.state for t in trials] == ["COMPLETED"] * population
    exploits = events(driver, "exploit")
    for trial in trials:  # every member trained to exactly its max_steps, each step stored once
        stored = steps(driver, trial.trial_id)
        assert stored[0] == 1 and stored[-1] == max_steps and stored == sorted(set(stored)), stored
        jumps = {(a, b - 1) for a, b in itertools.pairwise(stored) if b > a + 1}
        copied = {(e["step"], e["donor_step"]) for e in exploits if e["member"] == trial.trial_id}
        assert jumps <= copied, (trial.trial_id, jumps, copied)  # a gap only where it copied a donor ahead
    assert events(driver, "pause"), "members ahead must have let the others run"
    decided = [(r["member"], r["step"]) for r in driver.strategy.lineage() if r["event"] == "exploit"]
    assert sorted(decided) == sorted((e["member"], e["step"]) for e in exploits)  # all carried out
    for exploit in exploits:  # never copies a member far ahead of itself
        assert exploit["donor_step"] <= exploit["step"] + ready
    first_round = [(e["trial"], e["step"]) for e in events(driver, "pause")][:population - 2]
    assert first_round == [(m, ready) for m in range(population - 2)]  # the first ones wait for the rest


PROMOTION = {"rule": "asha", "grace": 1, "reduction": 3, "max_t": 9, "type": "promotion"}  # rungs 1, 3


def ranked_member(checkpoints: bool):
    """Trial ``i`` reports ``loss = 0.1 * (i + 1)`` at every step up to 9 (lower ids rank better),
    from its checkpoint's step on, with a checkpoint ``b"at-N"`` at each step when ``checkpoints``."""
    def script(task: TrialTask) -> list[Any]:
        played: list[Any] = [Start(f"w{task.trial_id % 2}")]
        for step in range((task.start_step or 0) + 1, 10):
            blob = f"at-{step}".encode() if checkpoints else None
            played.append(Report(step, {"loss": 0.1 * (task.trial_id + 1)}, blob))
        return [*played, Done()]
    return script


def ends(trials: list[Any]) -> list[tuple[str, int | None]]:
    return [(t.state, t.last_step) for t in trials]


def test_asha_promotion_pauses_at_rungs_and_resumes_promoted_trials_from_their_checkpoints(store):
    executor = ScriptedExecutor(ranked_member(checkpoints=True), slots=2)
    driver = build(store, executor, trials=9, parallel=2, early_stopping=PROMOTION)
    trials = run(driver, seconds=30)
    # the best floor(9/3) = 3 go on from rung 1, the best floor(3/3) = 1 of those from rung 3
    assert ends(trials) == [("COMPLETED", 9), ("STOPPED", 3), ("STOPPED", 3), *[("STOPPED", 1)] * 6]
    assert all(t.stop_reason == f"early stopping (asha) at step {t.last_step}: not promoted"
               for t in trials[1:])
    for trial in trials:  # every step once: a promoted trial goes on after the step it paused at
        assert steps(driver, trial.trial_id) == list(range(1, (trial.last_step or 0) + 1))
    assert [(t.start_step, checkpoint_of(t)) for t in executor.tasks(0)] == [
        (None, None), (1, b"at-1"), (3, b"at-3")]
    promoted = [(e["trial"], e["from_step"]) for e in events(driver, "resume") if e.get("by") == "promotion"]
    assert sorted(promoted) == [(0, 1), (0, 3), (1, 1), (2, 1)]
    pauses = events(driver, "pause")
    assert {(e["trial"], e["step"]) for e in pauses} == {(t, 1) for t in range(9)} | {(0, 3), (1, 3), (2, 3)}
    assert pauses[0]["reason"] == "early stopping (asha): waits at step 1 to be promoted"
    assert all(verdict in ("continue", "pause", "stop") for *_, verdict in executor.verdicts)


def test_asha_promotion_without_checkpoints_stops_as_the_stopping_type(store, tmp_path):
    promoted = build(store, ScriptedExecutor(ranked_member(checkpoints=False), slots=2), trials=9,
                     parallel=2, early_stopping=PROMOTION)
    with Store(tmp_path / "stopping.sqlite") as other:
        stopping = build(other, ScriptedExecutor(ranked_member(checkpoints=False), slots=2), trials=9,
                         parallel=2, early_stopping={**PROMOTION, "type": "stopping"})
        assert ends(run(promoted)) == ends(run(stopping)) == [("COMPLETED", 9), *[("STOPPED", 1)] * 8]
    assert events(promoted, "pause") == []  # it could not pause: it was judged at once


def resumed(store: Store, executor: ScriptedExecutor) -> Driver:
    """A new driver of the stored search "paths", as ``hpnb.resume`` builds it."""
    record = store.experiment("paths")
    spec = parse_spec(record.spec)
    strategy, stopping_rule = make_strategy(spec, record.budget), make_stopping_rule(spec)
    return Driver(objective=never_called, spec=spec, experiment_id=record.id, name=record.name, store=store,
                  executor=executor, strategy=strategy, stopping_rule=stopping_rule,
                  recovered=recover(store, record, strategy, stopping_rule), budget=record.budget,
                  parallel=spec.parallel)


def test_trials_waiting_to_be_promoted_wait_again_in_a_resumed_search(store):
    ref: list[Driver] = []
    member = ranked_member(checkpoints=True)

    def stopped_at_trial_4(task: TrialTask) -> list[Any]:
        stop = [Call(lambda: send(ref[0], "stop"))] if task.trial_id == 4 else []
        return [*stop, *member(task)]

    first = build(store, ScriptedExecutor(stopped_at_trial_4, slots=2), trials=9, parallel=2,
                  early_stopping=PROMOTION)
    ref.append(first)
    waiting = {t.trial_id for t in run(first) if t.state == "PAUSED"}
    assert waiting and waiting == first.stopping_rule.waiting_for_promotion()
    resumes_before = len(events(first, "resume"))
    driver = resumed(store, ScriptedExecutor(member, slots=2))
    assert driver.pauses.promotion == waiting  # they wait for the rule again, not for a free slot
    trials = run(driver, seconds=30)
    later = events(driver, "resume")[resumes_before:]
    assert later and all(e.get("by") == "promotion" for e in later)  # none resumed but by a promotion
    # the same ends as without the interruption
    assert ends(trials) == [("COMPLETED", 9), ("STOPPED", 3), ("STOPPED", 3), *[("STOPPED", 1)] * 6]
    for trial in trials:
        assert steps(driver, trial.trial_id) == list(range(1, (trial.last_step or 0) + 1))
