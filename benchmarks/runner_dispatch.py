"""Dispatch overhead: 500 no-op trials, hpnb against a bare Dask loop on the same cluster.

hpnb's wall time (``hpnb.search`` to ``wait()`` returning) is compared with a
bare ``client.submit(f, i, pure=False)`` + ``as_completed`` loop that submits
every task at once (the floor), with the same loop keeping only 2 tasks in
flight (what any search that waits for results before suggesting more must
do), and with Optuna's ``study.optimize(n_jobs=2)`` (threads in this process,
no cluster) as a reference. Each is measured 3 times; the median is shown.
Then, the Dask cluster closed, Ray Tune runs the same trials once through
``tune.Tuner`` (2 concurrent 1-CPU trials on a local Ray of 2 CPUs, actors reused;
``ray.init`` not timed, see ``benchmarks/_ray.py``), when it is installed.

Goal: hpnb / bare loop <= 1.3.

Usage:
    python benchmarks/runner_dispatch.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from _cluster import (
    SLOTS,
    UNIT_X,
    Bench,
    Goal,
    bare_all_at_once,
    bare_in_flight,
    bench_session,
    check_goals,
    parse_args,
    print_table,
    ship_by_value,
)
from _ray import tuner_runs

ship_by_value(__name__)

GOAL = 1.3
REPEATS = 3


def noop(x: float) -> float:
    """The trial: returns a constant."""
    return 0.0


def noop_task(i: int) -> float:
    return 0.0


def ray_noop(config: dict[str, Any]) -> None:
    """The Ray Tune trial: reports the same constant once."""
    from ray import tune

    tune.report({"loss": noop(config["x"])})


def optuna_seconds(trials: int) -> float:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial: Any) -> float:
        return noop(trial.suggest_float("x", 0.0, 1.0))

    started = time.perf_counter()
    study.optimize(objective, n_trials=trials, n_jobs=SLOTS)
    return time.perf_counter() - started


def measure(bench: Bench, trials: int) -> dict[str, float]:
    """Median seconds of each contender, measured in turns so that noise hits all alike."""
    runs: dict[str, list[float]] = {"hpnb": [], "bare": [], "bare2": [], "optuna": []}
    for _ in range(REPEATS):
        runs["hpnb"].append(bench.search(noop, trials=trials, parameters=UNIT_X, seed=0)[0])
        runs["bare"].append(bare_all_at_once(bench.client, noop_task, range(trials)))
        runs["bare2"].append(bare_in_flight(bench.client, noop_task, range(trials)))
        runs["optuna"].append(optuna_seconds(trials))
    return {name: statistics.median(values) for name, values in runs.items()}


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = 200 if args.quick else 500
    with bench_session("dispatch") as bench:
        bench.warm_up(noop, noop_task)
        seconds = measure(bench, trials)
    ray_runs = tuner_runs(ray_noop, trials)
    base = seconds["bare"]
    rows = [
        ("bare Dask loop, all submitted at once", seconds["bare"], 1000 * seconds["bare"] / trials, 1.0),
        ("bare Dask loop, 2 in flight", seconds["bare2"], 1000 * seconds["bare2"] / trials,
         seconds["bare2"] / base),
        ("hpnb.search (random, parallel 2)", seconds["hpnb"], 1000 * seconds["hpnb"] / trials,
         seconds["hpnb"] / base),
        ("Optuna n_jobs=2 (threads, no cluster)", seconds["optuna"], 1000 * seconds["optuna"] / trials,
         seconds["optuna"] / base),
    ]
    if ray_runs:
        ray_seconds = ray_runs[0][0]
        rows.append(("Ray Tune Tuner, 2 concurrent (once)", ray_seconds, 1000 * ray_seconds / trials,
                     ray_seconds / base))
    print_table(f"Dispatch: {trials} no-op trials on {SLOTS} single-threaded workers, median of {REPEATS}",
                ("contender", "wall s", "ms / trial", "ratio to bare loop"), rows)
    return check_goals([Goal("hpnb / bare Dask loop", seconds["hpnb"] / base, GOAL)])


if __name__ == "__main__":
    sys.exit(main())
