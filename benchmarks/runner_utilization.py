"""Slot utilization: 200 trials of log-normal durations (median 0.1 s, sigma 1), hpnb against batches.

The durations are drawn once from a seeded generator, so every run and every
contender sleeps the same table. hpnb runs them as a grid over the index
``i`` (trial ``k`` sleeps ``DURATIONS[k]``). Utilization is the busy time (the
sum of the durations) over slots x wall time. Throughput (trials per minute)
is compared with the same trials run in synchronous batches of 2 (a bare Dask
loop: submit 2, wait for both, submit the next 2), and shown next to a bare
Dask loop that keeps 2 tasks in flight.

Goals: hpnb utilization >= 0.95; hpnb trials/min >= 1.3 x synchronous batches.

Usage:
    python benchmarks/runner_utilization.py [--quick]
"""

from __future__ import annotations

import heapq
import math
import random
import sys
import time

from _cluster import (
    SLOTS,
    Goal,
    bare_batches,
    bare_in_flight,
    bench_session,
    check_goals,
    parse_args,
    print_table,
    ship_by_value,
)

ship_by_value(__name__)

UTILIZATION_GOAL = 0.95
SPEEDUP_GOAL = 1.3
TRIALS = 200
_draw = random.Random(20261129)
DURATIONS = [_draw.lognormvariate(math.log(0.1), 1.0) for _ in range(TRIALS)]


def sleep_for(i: int) -> float:
    """The trial: sleeps the ``i``-th duration of the table."""
    time.sleep(DURATIONS[i])
    return DURATIONS[i]


def sleep_task(i: int) -> float:
    time.sleep(DURATIONS[i])
    return DURATIONS[i]


def greedy_makespan(durations: list[float], slots: int = SLOTS) -> float:
    """Wall time of running ``durations`` in order with zero overhead, each on the first free slot."""
    free = [0.0] * slots
    for duration in durations:
        heapq.heapreplace(free, free[0] + duration)
    return max(free)


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = TRIALS // 2 if args.quick else TRIALS
    busy = sum(DURATIONS[:trials])
    space = {"i": {"type": "int", "min": 0, "max": trials - 1}}
    with bench_session("utilization") as bench:
        bench.warm_up(sleep_for, sleep_task, parameters={"i": {"type": "int", "min": 0, "max": 3}})
        hpnb_seconds = bench.search(sleep_for, trials=trials, parameters=space, strategy="grid")[0]
        batch_seconds = bare_batches(bench.client, sleep_task, range(trials))
        flight_seconds = bare_in_flight(bench.client, sleep_task, range(trials))

    def row(name: str, seconds: float) -> tuple[str, float, float, float, float]:
        return name, seconds, busy / (SLOTS * seconds), 60 * trials / seconds, batch_seconds / seconds

    rows = [
        ("ideal (busy time / 2 slots)", busy / SLOTS, 1.0, 60 * trials * SLOTS / busy,
         batch_seconds * SLOTS / busy),
        row("zero-overhead schedule in this order", greedy_makespan(DURATIONS[:trials])),
        row("synchronous batches of 2 (bare Dask)", batch_seconds),
        row("bare Dask loop, 2 in flight", flight_seconds),
        row("hpnb.search (grid over i, parallel 2)", hpnb_seconds),
    ]
    print_table(f"Utilization: {trials} trials, log-normal durations (median 0.1 s, sigma 1, "
                f"busy {busy:.1f} s, longest {max(DURATIONS[:trials]):.2f} s) on {SLOTS} slots",
                ("contender", "wall s", "utilization", "trials / min", "speed-up over batches"), rows)
    return check_goals([
        Goal("hpnb utilization", busy / (SLOTS * hpnb_seconds), UTILIZATION_GOAL, at_most=False),
        Goal("hpnb trials/min over synchronous batches", batch_seconds / hpnb_seconds, SPEEDUP_GOAL,
             at_most=False),
    ])


if __name__ == "__main__":
    sys.exit(main())
