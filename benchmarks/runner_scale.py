"""Scale: a 10,000-trial random search of a trivial objective that reports 20 results per trial.

The time per trial is printed for each block of 1,000 finished trials (from
the trials' stored end times) next to a bare Dask loop keeping 2 tasks in
flight, so a driver that slows down as its search grows shows up as a rising
column. The driver's resident memory is sampled while the search runs.

Goals: driver memory growth <= 300 MB; last block / first block <= 1.5.

Usage:
    python benchmarks/runner_scale.py [--quick]     # --quick: 2,000 trials
"""

from __future__ import annotations

import itertools
import sys
import time

from _cluster import (
    SLOTS,
    UNIT_X,
    Goal,
    MemoryWatch,
    bare_in_flight,
    bench_session,
    check_goals,
    parse_args,
    print_table,
    ship_by_value,
)
from distributed import Client

import hpnb

ship_by_value(__name__)

MEMORY_GOAL_MB = 300.0
GROWTH_GOAL = 1.5
BLOCK = 1_000
REPORTS = 20


def trivial(x: float) -> float:
    """The trial: 20 reports, then its final value."""
    for step in range(REPORTS):
        hpnb.report(step=step, loss=x + step)
    return x


def trivial_task(i: int) -> float:
    return float(i)


def block_times(ends: list[float], started: float) -> list[float]:
    """Milliseconds per trial of each block of ``BLOCK`` trials, from sorted end times."""
    marks = [started] + [ends[k - 1] for k in range(BLOCK, len(ends) + 1, BLOCK)]
    return [1000 * (b - a) / BLOCK for a, b in itertools.pairwise(marks)]


def bare_block_times(client: Client, trials: int) -> list[float]:
    ends: list[float] = []
    started = time.time()
    bare_in_flight(client, trivial_task, range(trials), on_done=lambda done: ends.append(time.time()))
    return block_times(ends, started)


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = 2_000 if args.quick else 10_000
    with bench_session("scale") as bench:
        bench.warm_up(trivial, trivial_task)
        started = time.time()
        with MemoryWatch() as memory:
            seconds, search = bench.search(trivial, trials=trials, parameters=UNIT_X, strategy="random",
                                           seed=0)
        ends = sorted(t.end for t in bench.store.trials(search.experiment_id) if t.end is not None)
        stored = bench.store.result_count(search.experiment_id)
        hpnb_blocks = block_times(ends, started)
        bare_blocks = bare_block_times(bench.client, trials)
    rows = [(f"{k * BLOCK + 1:,}-{(k + 1) * BLOCK:,}", h, b, h / b)
            for k, (h, b) in enumerate(zip(hpnb_blocks, bare_blocks))]
    print_table(f"Scale: {trials:,} trials x {REPORTS} reports on {SLOTS} single-threaded workers "
                f"(hpnb {seconds:.0f} s, {stored:,} rows stored; driver RSS {memory.start_mb:.0f} MB -> "
                f"peak {memory.peak_mb:.0f} MB, end {memory.end_mb:.0f} MB)",
                ("trials", "hpnb ms / trial", "bare Dask 2 in flight ms / task", "ratio"), rows)
    return check_goals([
        Goal("hpnb rows stored / rows reported", stored / (trials * REPORTS), 1.0, at_most=False),
        Goal("driver memory growth MB", memory.growth_mb, MEMORY_GOAL_MB),
        Goal("hpnb last block / first block", hpnb_blocks[-1] / hpnb_blocks[0], GROWTH_GOAL),
    ])


if __name__ == "__main__":
    sys.exit(main())
