"""Early-stopping precision: where ASHA's stops land, hpnb against Ray Tune's ASHAScheduler.

16 configurations of a learning curve, ``loss(step) = floor + exp(-rate * step)``
(``rate`` uniform in [0.05, 0.5], ``floor`` in [0, 0.5], drawn once with seed 0),
each trained for 20 steps that sleep 10 ms (then, again, 100 ms) before
reporting. Both tools run the same configurations in the same order on 2 slots:
hpnb with ``strategy: {name: fixed, configs: [...]}`` and ``early_stopping: {rule:
asha, grace: 2, reduction: 3, max_t: 20}`` on a ``LocalCluster`` of 2
single-threaded workers; Ray Tune with a grid over the same configurations,
``ASHAScheduler(grace_period=2, reduction_factor=3, max_t=20)``, 2 concurrent
trials of 1 CPU each (``benchmarks/_ray.py``). For each: trials stopped early,
steps executed, and steps executed after the stop decision.

hpnb's figures are read from the store: a trial's last stored step, and the step
at which the driver decided to stop it (its stop reason). Ray's stop decisions are
recorded by a subclass of its scheduler (the result's ``training_iteration`` when it
answered STOP before ``max_t``); Ray's steps are counted by the trainable itself,
one mark in a file per step run, so that a step run after the decision is counted
even if Ray drops its result.

Goal (issue 13): 0 steps after a stop decision for hpnb at both step times.

Usage:
    python benchmarks/early_stopping_precision.py
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from _cluster import Bench, Goal, bench_session, check_goals, print_table, ship_by_value
from _ray import RayTuner, missing, ray_session
from early_stopping import decision_step, steps_after_stop

import hpnb

ship_by_value(__name__)

SEED = 0
TRIALS = 16
STEPS = 20
STEP_SECONDS = (0.01, 0.1)
GRACE, REDUCTION = 2, 3
ASHA = {"rule": "asha", "grace": GRACE, "reduction": REDUCTION, "max_t": STEPS}
SPACE = {"rate": {"min": 0.05, "max": 0.5}, "floor": {"min": 0.0, "max": 0.5}}


def configurations(seed: int = SEED) -> list[dict[str, float]]:
    """The 16 configurations both tools run, in this order."""
    rng = np.random.default_rng(seed)
    return [{"rate": float(rng.uniform(0.05, 0.5)), "floor": float(rng.uniform(0.0, 0.5))}
            for _ in range(TRIALS)]


def loss_at(rate: float, floor: float, step: int) -> float:
    return floor + math.exp(-rate * step)


@dataclass(frozen=True)
class Outcome:
    """One tool's run at one step time; ``stopped`` holds the indices of the configurations stopped."""

    tool: str
    step_seconds: float
    seconds: float
    stopped: frozenset[int]
    ended_early: int
    steps: int
    late_steps: int

    def row(self) -> list[Any]:
        return [self.tool, f"{1000 * self.step_seconds:g}", len(self.stopped), self.ended_early, self.steps,
                self.late_steps, self.seconds, " ".join(map(str, sorted(self.stopped))) or "-"]


HEADERS = ("tool", "step ms", "stop decisions", f"trials ended before step {STEPS}", "steps executed",
           "steps after stop decision", "wall s", "configurations decided to stop")


# -- hpnb ----------------------------------------------------------------------------------
def curve(rate: float, floor: float, step_seconds: float) -> float:
    """The hpnb trial: 20 steps of ``step_seconds``, each reported."""
    for step in range(1, STEPS + 1):
        time.sleep(step_seconds)
        hpnb.report(step=step, loss=loss_at(rate, floor, step))
    return loss_at(rate, floor, STEPS)


def run_hpnb(bench: Bench, configs: list[dict[str, float]], step_seconds: float) -> Outcome:
    seconds, search = bench.search(partial(curve, step_seconds=step_seconds), mode="min", trials=TRIALS,
                                   parallel=2, parameters=SPACE, early_stopping=ASHA,
                                   strategy={"name": "fixed", "configs": configs})
    trials = bench.store.trials(search.experiment_id)
    index = {(c["rate"], c["floor"]): i for i, c in enumerate(configs)}
    stopped = frozenset(index[(t.params["rate"], t.params["floor"])] for t in trials
                        if decision_step(t) is not None)
    last_steps = [t.last_step or 0 for t in trials]
    return Outcome("hpnb", step_seconds, seconds, stopped, sum(step < STEPS for step in last_steps),
                   sum(last_steps), steps_after_stop(trials))


# -- Ray Tune ------------------------------------------------------------------------------
def ray_curve(config: dict[str, Any]) -> None:
    """The Ray Tune trial: the same steps; each one marks a file before its result is reported."""
    from ray import tune

    trial, marks = config["trial"], Path(config["marks"]) / str(config["trial"]["index"])
    for step in range(1, STEPS + 1):
        time.sleep(config["step_seconds"])
        with marks.open("a") as file:
            file.write(".")
        tune.report({"loss": loss_at(trial["rate"], trial["floor"], step)})


def recording_asha() -> Any:
    """Ray's ASHAScheduler, remembering the iteration of each early STOP it answers."""
    from ray.tune.schedulers import ASHAScheduler, TrialScheduler

    class RecordingASHA(ASHAScheduler):
        def __init__(self) -> None:
            super().__init__(grace_period=GRACE, reduction_factor=REDUCTION, max_t=STEPS)
            self.decisions: dict[int, int] = {}

        def on_trial_result(self, tune_controller: Any, trial: Any, result: dict[str, Any]) -> str:
            decision = super().on_trial_result(tune_controller, trial, result)
            step = int(result["training_iteration"])
            if decision == TrialScheduler.STOP and step < STEPS:
                self.decisions.setdefault(trial.config["trial"]["index"], step)
            return decision

    return RecordingASHA()


def run_ray(tuner: RayTuner, configs: list[dict[str, float]], step_seconds: float) -> Outcome:
    from ray import tune

    with tempfile.TemporaryDirectory(prefix="hpnb-bench-marks-") as marks:
        scheduler = recording_asha()
        space = {"trial": tune.grid_search([{"index": i, **c} for i, c in enumerate(configs)]),
                 "step_seconds": step_seconds, "marks": marks}
        seconds, _ = tuner.fit(ray_curve, space, metric="loss", mode="min", scheduler=scheduler)
        ran = {int(p.name): len(p.read_text()) for p in Path(marks).iterdir()}
    late = sum(ran[i] - step for i, step in scheduler.decisions.items())
    return Outcome("Ray Tune", step_seconds, seconds, frozenset(scheduler.decisions),
                   sum(steps < STEPS for steps in ran.values()), sum(ran.values()), late)


def main() -> int:
    configs = configurations()
    outcomes = []
    with bench_session("precision") as bench:
        bench.warm_up(partial(curve, step_seconds=0.0), lambda i: i, parameters=SPACE)
        outcomes += [run_hpnb(bench, configs, seconds) for seconds in STEP_SECONDS]
    reason = missing()
    if reason:
        print(f"Ray Tune rows skipped: {reason}")
    else:
        with ray_session() as tuner:
            run_ray(tuner, configs[:4], 0.0)  # warm-up, not shown
            outcomes += [run_ray(tuner, configs, seconds) for seconds in STEP_SECONDS]
    print_table(f"ASHA (grace {GRACE}, reduction {REDUCTION}, max_t {STEPS}): {TRIALS} seeded configurations "
                f"x {STEPS} steps on 2 slots", HEADERS, [o.row() for o in outcomes])
    for tool in dict.fromkeys(o.tool for o in outcomes):
        sets = {o.stopped for o in outcomes if o.tool == tool}
        same = "the same" if len(sets) == 1 else "not the same"
        print(f"{tool}: {same} trials decided to stop at every step time")
    return check_goals([Goal(f"hpnb steps after a stop decision, {1000 * o.step_seconds:g} ms steps",
                             o.late_steps, 0) for o in outcomes if o.tool == "hpnb"])


if __name__ == "__main__":
    sys.exit(main())
