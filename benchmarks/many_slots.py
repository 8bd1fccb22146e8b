"""Many slots: trials of ``sleep(1)`` on 200, 500 and 1,000 simulated slots, hpnb against a bare
Dask loop in the same run.

A large cluster is simulated by 4 local worker processes with many threads each (a trial that
sleeps holds a thread, not a core). Each row runs ``rounds`` trials per slot; the ideal time is
``rounds`` seconds. hpnb runs a random search of as many trials with ``parallel`` = the slots;
the bare loop keeps as many tasks in flight (submit one as soon as one ends). The ceiling is the
trials per second each reaches.

Goals: on 200 slots, hpnb <= 1.05 x the ideal time, and never slower than the bare loop.

Usage:
    python benchmarks/many_slots.py [--quick]     # --quick: 200 and 500 slots, 5 rounds
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _cluster import UNIT_X, Goal, bare_in_flight, check_goals, parse_args, print_table, ship_by_value
from distributed import Client, LocalCluster

import hpnb
from hpnb.core.store import Store

ship_by_value(__name__)

PROCESSES = 4
TIME_GOAL = 1.05


def sleep_one(x: float) -> float:
    """The trial: one second of waiting."""
    time.sleep(1.0)
    return x


def sleep_task(i: int) -> int:
    time.sleep(1.0)
    return i


def measure(slots: int, rounds: int, folder: Path) -> list[object]:
    """One row: hpnb and the bare loop on a cluster of ``slots`` threads."""
    trials = slots * rounds
    with LocalCluster(n_workers=PROCESSES, threads_per_worker=slots // PROCESSES, processes=True,
                      dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
        store = Store(folder / f"slots-{slots}.sqlite")
        hpnb.search(sleep_one, name="warm-up", store=store, client=client, metric="x", trials=slots,
                    parallel=slots, parameters=UNIT_X, strategy="random").wait()
        bare = bare_in_flight(client, sleep_task, range(trials), slots=slots)
        started = time.perf_counter()
        search = hpnb.search(sleep_one, name="sleep", store=store, client=client, metric="x", trials=trials,
                             parallel=slots, parameters=UNIT_X, strategy="random").wait()
        seconds = time.perf_counter() - started
        store.close()
    if search.state != "COMPLETED":
        raise RuntimeError(f"the search ended {search.state}: {search.message}")
    return [slots, trials, float(rounds), seconds, seconds / rounds, trials / seconds, bare, bare / rounds,
            trials / bare, seconds / bare]


def main() -> int:
    args = parse_args(__doc__ or "")
    rows = []
    plan = [(200, 5), (500, 5)] if args.quick else [(200, 50), (500, 20), (1000, 10)]
    with tempfile.TemporaryDirectory(prefix="hpnb-many-slots-") as folder:
        for slots, rounds in plan:
            rows.append(measure(slots, rounds, Path(folder)))
    print_table("trials of sleep(1) on many simulated slots (4 worker processes)",
                ["slots", "trials", "ideal s", "hpnb s", "hpnb / ideal", "hpnb trials/s", "bare s",
                 "bare / ideal", "bare trials/s", "hpnb / bare"], rows)
    first = rows[0]
    return check_goals([Goal("hpnb / ideal on 200 slots", float(first[4]), TIME_GOAL),  # type: ignore[arg-type]
                        Goal("hpnb / bare loop on 200 slots", float(first[9]), 1.0)])  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
