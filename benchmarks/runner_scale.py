"""Scale: a 10,000-trial random search of a trivial objective that reports 20 results per trial.

The time per trial is printed for each block of 1,000 finished trials (from
the trials' stored end times) next to a bare Dask loop keeping 2 tasks in
flight, so a driver that slows down as its search grows shows up as a rising
column. The driver's resident memory is sampled while the search runs.

Goals: driver memory growth <= 300 MB; last block / first block <= 1.5.

A 2,000-trial TPE search of the same objective follows (both modes): its time per
block next to Optuna's TPE alone (ask and tell, no hpnb), so that what grows with
the search is Optuna's own model, not hpnb's saving of the strategy state (now the
seed and a count). Goal: saved TPE state < 10 KB (its size, not the noisy block
times on shared cores, is what shows that saving it does not grow with the search).

Usage:
    python benchmarks/runner_scale.py [--quick]     # --quick: 2,000 trials
"""

from __future__ import annotations

import itertools
import json
import sys
import time

from _cluster import (
    SLOTS,
    UNIT_X,
    Bench,
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


TPE_TRIALS = 2_000
TPE_STATE_GOAL = 10_000


def optuna_tpe_block_times(trials: int) -> list[float]:
    """Milliseconds per ask and tell of Optuna's TPE alone, per block of ``BLOCK`` trials."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    distributions = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    started, ends = time.time(), []
    for _ in range(trials):
        trial = study.ask(distributions)
        study.tell(trial, trial.params["x"])
        ends.append(time.time())
    return block_times(ends, started)


TpeRow = tuple[str, float, float, float, float]


def tpe_rows(bench: Bench, bare_blocks: list[float]) -> tuple[list[TpeRow], int]:
    """The TPE search's rows (block, hpnb, Optuna alone, bare Dask, hpnb - Optuna) and its state's size."""
    started = time.time()
    _, search = bench.search(trivial, trials=TPE_TRIALS, parameters=UNIT_X, strategy="tpe", seed=0)
    ends = sorted(t.end for t in bench.store.trials(search.experiment_id) if t.end is not None)
    state = bench.store.experiment_with_id(search.experiment_id).strategy_state
    alone = optuna_tpe_block_times(TPE_TRIALS)
    rows = [(f"tpe {k * BLOCK + 1:,}-{(k + 1) * BLOCK:,}", h, o, b, h - o)
            for k, (h, o, b) in enumerate(zip(block_times(ends, started), alone, bare_blocks))]
    return rows, len(json.dumps(state))


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
        tpe, tpe_state_bytes = tpe_rows(bench, bare_blocks)
    rows = [(f"{k * BLOCK + 1:,}-{(k + 1) * BLOCK:,}", h, b, h / b)
            for k, (h, b) in enumerate(zip(hpnb_blocks, bare_blocks))]
    print_table(f"Scale: {trials:,} trials x {REPORTS} reports on {SLOTS} single-threaded workers "
                f"(hpnb {seconds:.0f} s, {stored:,} rows stored; driver RSS {memory.start_mb:.0f} MB -> "
                f"peak {memory.peak_mb:.0f} MB, end {memory.end_mb:.0f} MB)",
                ("trials", "hpnb ms / trial", "bare Dask 2 in flight ms / task", "ratio"), rows)
    print_table(f"TPE: {TPE_TRIALS:,} trials x {REPORTS} reports (strategy state: {tpe_state_bytes} bytes)",
                ("trials", "hpnb ms / trial", "Optuna TPE alone ms / trial", "bare Dask ms / task",
                 "hpnb - Optuna alone"), tpe)
    return check_goals([
        Goal("tpe saved strategy state bytes", tpe_state_bytes, TPE_STATE_GOAL),
        Goal("hpnb rows stored / rows reported", stored / (trials * REPORTS), 1.0, at_most=False),
        Goal("driver memory growth MB", memory.growth_mb, MEMORY_GOAL_MB),
        Goal("hpnb last block / first block", hpnb_blocks[-1] / hpnb_blocks[0], GROWTH_GOAL),
    ])


if __name__ == "__main__":
    sys.exit(main())
