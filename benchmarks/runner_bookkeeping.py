"""Bookkeeping overhead: 200 trials of ``time.sleep(0.1)`` on 2 slots, against the ideal 10 s.

hpnb's wall time (``hpnb.search`` to ``wait()`` returning) is divided by the
ideal time (trials x 0.1 s / 2 slots). A bare Dask loop keeping 2 tasks in
flight on the same cluster shows what Dask alone costs; Ray Tune's published
figure for the same test (1.14) is printed for reference. Then, the Dask cluster
closed, Ray Tune runs the same trials through ``tune.Tuner`` (2 concurrent 1-CPU
trials on a local Ray of 2 CPUs, actors reused; ``ray.init`` not timed, see
``benchmarks/_ray.py``), when it is installed.

Goal: hpnb / ideal <= 1.05.

Usage:
    python benchmarks/runner_bookkeeping.py [--quick]
"""

from __future__ import annotations

import sys
import time
from typing import Any

from _cluster import (
    SLOTS,
    UNIT_X,
    Goal,
    bare_in_flight,
    bench_session,
    check_goals,
    parse_args,
    print_table,
    ship_by_value,
)
from _ray import tuner_runs

ship_by_value(__name__)

GOAL = 1.05
SLEEP = 0.1
RAY_TUNE_PUBLISHED = 1.14


def nap(x: float) -> float:
    """The trial: sleeps 0.1 s."""
    time.sleep(SLEEP)
    return 0.0


def nap_task(i: int) -> float:
    time.sleep(SLEEP)
    return 0.0


def ray_nap(config: dict[str, Any]) -> None:
    """The Ray Tune trial: the same sleep, one result."""
    from ray import tune

    tune.report({"loss": nap(config["x"])})


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = 100 if args.quick else 200
    ideal = trials * SLEEP / SLOTS
    with bench_session("bookkeeping") as bench:
        bench.warm_up(nap, nap_task)
        hpnb_seconds = bench.search(nap, trials=trials, parameters=UNIT_X, seed=0)[0]
        bare_seconds = bare_in_flight(bench.client, nap_task, range(trials))
    ray_runs = tuner_runs(ray_nap, trials)
    rows: list[tuple[str, Any, float]] = [
        ("ideal (trials x 0.1 s / 2 slots)", ideal, 1.0),
        ("bare Dask loop, 2 in flight", bare_seconds, bare_seconds / ideal),
        ("hpnb.search (random, parallel 2)", hpnb_seconds, hpnb_seconds / ideal),
        ("Ray Tune, published (not measured here)", "-", RAY_TUNE_PUBLISHED),
    ]
    if ray_runs:
        rows.append(("Ray Tune Tuner, 2 concurrent, measured here", ray_runs[0][0], ray_runs[0][0] / ideal))
    print_table(f"Bookkeeping: {trials} trials of sleep(0.1) on {SLOTS} single-threaded workers",
                ("contender", "wall s", "ratio to ideal"), rows)
    return check_goals([Goal("hpnb / ideal", hpnb_seconds / ideal, GOAL)])


if __name__ == "__main__":
    sys.exit(main())
