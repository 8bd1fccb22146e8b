"""Numpy metrics: 20 instant trials each reporting 100 numpy scalars, against Python floats.

Training code reports what its libraries hand it: ``np.float64``, ``np.float32``,
0-d arrays, tensors with ``.item()``. Each variant is a search of 20 trials that
report 100 values of that type as fast as they can and return one; the baseline
reports Python floats. The variants run in turns on one cluster (the order
rotated every round, so that noise and warm-up hit all alike); the median
seconds of each, its ratio to the baseline's median and the median of its ratios
to the baseline in the same round are printed, and every search must store all
of its 2,000 rows.

Goal: each numpy or tensor-like variant / Python floats <= 1.10.

Usage:
    python benchmarks/runner_numpy_metrics.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _cluster import UNIT_X, Bench, Goal, bench_session, check_goals, parse_args, print_table, ship_by_value

import hpnb

ship_by_value(__name__)

GOAL = 1.10
TRIALS = 20
REPORTS = 100
BASELINE = "float (Python)"


class ItemTensor:
    """A torch-style one-value tensor: ``.item()`` and ``__float__``, no numpy behind it."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = value

    def item(self) -> float:
        return self.value

    def __float__(self) -> float:
        return self.value


#: variant -> how a trial makes each reported value from a float.
VALUES: dict[str, Callable[[float], Any]] = {
    BASELINE: float,
    "np.float64": np.float64,
    "np.float32": np.float32,
    "0-d np.array (float64)": np.array,
    "torch-style .item() / __float__": ItemTensor,
}


def reporter(variant: str) -> Callable[[float], Any]:
    """The trial of ``variant``: reports :data:`REPORTS` values of its type, returns one."""
    make = VALUES[variant]

    def trial(x: float) -> Any:
        for step in range(REPORTS):
            hpnb.report(step=step, loss=make(x + step))
        return make(x)

    return trial


def run_variant(bench: Bench, variant: str) -> float:
    """Seconds of one search of ``variant``; raises when a row is missing."""
    seconds, search = bench.search(reporter(variant), trials=TRIALS, parameters=UNIT_X, seed=0)
    stored = bench.store.result_count(search.experiment_id)
    if stored != TRIALS * REPORTS:
        raise RuntimeError(f"{variant}: {stored} rows stored, expected {TRIALS * REPORTS}")
    return seconds


def measure(bench: Bench, rounds: int) -> dict[str, list[float]]:
    """Every variant's seconds, one search of each per round, in an order rotated each round."""
    names = list(VALUES)
    runs: dict[str, list[float]] = {name: [] for name in names}
    for turn in range(rounds):
        for name in names[turn % len(names):] + names[:turn % len(names)]:
            runs[name].append(run_variant(bench, name))
    return runs


def paired_ratio(runs: dict[str, list[float]], name: str) -> float:
    """The median over rounds of ``name``'s seconds / the baseline's in the same round."""
    return statistics.median(value / base for value, base in zip(runs[name], runs[BASELINE]))


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    rounds = 5 if args.quick else 31
    with bench_session("numpy-metrics") as bench:
        bench.warm_up(reporter("np.float64"), lambda i: i)
        runs = measure(bench, rounds)
    medians = {name: statistics.median(values) for name, values in runs.items()}
    base = medians[BASELINE]
    rows = [(name, seconds, 1000 * seconds / TRIALS, seconds / base, paired_ratio(runs, name),
             "-" if name == BASELINE else f"<= {GOAL:.2f}") for name, seconds in medians.items()]
    print_table(f"Numpy metrics: {TRIALS} instant trials x {REPORTS} reports, "
                f"median of {rounds} alternated rounds",
                ("values reported", "median s", "ms / trial", "ratio to float", "same-round ratio", "goal"),
                rows)
    print("\nseconds of every round: " + "; ".join(
        f"{name}: {' '.join(f'{value:.2f}' for value in values)}" for name, values in runs.items()))
    return check_goals([Goal(f"{name} / float", seconds / base, GOAL)
                        for name, seconds in medians.items() if name != BASELINE])


if __name__ == "__main__":
    sys.exit(main())
