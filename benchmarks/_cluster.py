"""Shared setup of the runner benchmarks: one cluster, a temporary store, timing and goal checks.

Every runner benchmark runs hpnb and its peers side by side on the same
``LocalCluster`` (2 single-threaded worker processes) in one run, and reports
ratios rather than absolute times: the machines these run on are shared and
noisy. A benchmark exits with status 1 when one of its goals is missed.

Example:
    >>> with bench_session("dispatch", quick=True) as bench:  # doctest: +SKIP
    ...     seconds, search = bench.search(objective, trials=10, parameters={"x": {"min": 0, "max": 1}})
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cloudpickle
import psutil
from distributed import Client, LocalCluster, as_completed

import hpnb
from hpnb.api import Search
from hpnb.core.store import Store

#: worker processes of the benchmark cluster, one thread each.
SLOTS = 2
MB = 1024 * 1024
#: a one-parameter space for objectives whose parameter does not matter.
UNIT_X = {"x": {"min": 0.0, "max": 1.0}}


def ship_by_value(module_name: str) -> None:
    """Send the objectives defined in ``module_name`` to the workers by value (they cannot import it)."""
    cloudpickle.register_pickle_by_value(sys.modules[module_name])


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="a smaller, faster run")
    return parser.parse_args()


def rss_mb() -> float:
    """Resident memory of this process (the driver's) in MB."""
    return float(psutil.Process().memory_info().rss) / MB


@dataclass
class Bench:
    """A cluster's client and a store, shared by every measurement of one benchmark run."""

    client: Client
    store: Store
    label: str
    _names: Iterator[int] = field(default_factory=itertools.count)

    def search(self, objective: Callable[..., Any], **spec: Any) -> tuple[float, Search]:
        """Run one hpnb search to its end: seconds from ``hpnb.search`` to ``wait()`` returning."""
        spec.setdefault("metric", "loss")
        # the runner is measured, not a strategy: random unless a benchmark names one (the spec's
        # default, auto, would time TPE's suggestions)
        spec.setdefault("strategy", "random")
        name = f"{self.label}-{next(self._names)}"
        started = time.perf_counter()
        search = hpnb.search(objective, name=name, store=self.store, client=self.client, **spec)
        search.wait()
        elapsed = time.perf_counter() - started
        if search.state != "COMPLETED":
            raise RuntimeError(f"search {name} ended {search.state}: {search.message}")
        return elapsed, search

    def warm_up(self, objective: Callable[..., Any], task: Callable[[int], Any], **spec: Any) -> None:
        """Import hpnb and unpickle the objectives on every worker before anything is timed."""
        spec.setdefault("parameters", UNIT_X)
        self.search(objective, trials=4, **spec)
        bare_all_at_once(self.client, task, range(4 * SLOTS))


@contextlib.contextmanager
def bench_session(label: str) -> Iterator[Bench]:
    """The benchmark cluster (2 single-threaded worker processes) and a store in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix=f"hpnb-bench-{label}-") as folder:
        cluster = LocalCluster(n_workers=SLOTS, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster, set_as_default=False)
        store = Store(Path(folder) / "hpnb.sqlite")
        try:
            yield Bench(client, store, label)
        finally:
            store.close()
            client.close()
            cluster.close()


# -- peers: bare Dask loops ----------------------------------------------------------------
def bare_all_at_once(client: Client, task: Callable[[int], Any], args: Sequence[int] | range) -> float:
    """Seconds to submit every task at once and collect them with ``as_completed``."""
    started = time.perf_counter()
    futures = [client.submit(task, i, pure=False) for i in args]
    for future in as_completed(futures, loop=client.loop):
        future.result()
    return time.perf_counter() - started


def bare_in_flight(client: Client, task: Callable[[int], Any], args: Sequence[int] | range,
                   slots: int = SLOTS, on_done: Callable[[int], None] | None = None) -> float:
    """Seconds to run the tasks with at most ``slots`` in flight, a new one as soon as one ends."""
    pending = iter(args)
    started = time.perf_counter()
    running = as_completed([client.submit(task, i, pure=False) for i in itertools.islice(pending, slots)],
                           loop=client.loop)
    for done, future in enumerate(running, start=1):
        future.result()
        if on_done is not None:
            on_done(done)
        following = next(pending, None)
        if following is not None:
            running.add(client.submit(task, following, pure=False))
    return time.perf_counter() - started


def bare_batches(client: Client, task: Callable[[int], Any], args: Sequence[int] | range,
                 size: int = SLOTS) -> float:
    """Seconds to run the tasks in synchronous batches: submit ``size``, wait for all, repeat."""
    values = list(args)
    started = time.perf_counter()
    for first in range(0, len(values), size):
        client.gather([client.submit(task, i, pure=False) for i in values[first:first + size]])
    return time.perf_counter() - started


# -- measuring -----------------------------------------------------------------------------
def median_of(measure: Callable[[], float], repeats: int) -> tuple[float, list[float]]:
    """The median of ``repeats`` calls of ``measure`` and every value."""
    values = [measure() for _ in range(repeats)]
    return statistics.median(values), values


class MemoryWatch:
    """This process's resident memory while a block runs: at the start, at its peak, at the end.

    Example:
        >>> with MemoryWatch() as memory:
        ...     data = bytearray(10 * MB)
        >>> memory.peak_mb >= memory.start_mb
        True
    """

    def __init__(self, period: float = 0.05) -> None:
        self.period = period
        self.start_mb = self.peak_mb = self.end_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="hpnb-bench-rss", daemon=True)

    def __enter__(self) -> MemoryWatch:
        self.start_mb = self.peak_mb = rss_mb()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.end_mb = rss_mb()
        self.peak_mb = max(self.peak_mb, self.end_mb)

    @property
    def growth_mb(self) -> float:
        """Peak minus start."""
        return self.peak_mb - self.start_mb

    def _sample(self) -> None:
        while not self._stop.wait(self.period):
            self.peak_mb = max(self.peak_mb, rss_mb())


# -- reporting -----------------------------------------------------------------------------
def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A Markdown table (readable in a terminal, pasteable into the README)."""
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(str(h)), *(len(row[i]) for row in cells)) for i, h in enumerate(headers)]
    print(f"\n{title}\n")
    print("| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Goal:
    """One target of a benchmark: ``value`` must be at most (or at least) ``target``."""

    what: str
    value: float
    target: float
    at_most: bool = True

    @property
    def met(self) -> bool:
        return self.value <= self.target if self.at_most else self.value >= self.target

    def line(self) -> str:
        sign = "<=" if self.at_most else ">="
        outcome = "met   " if self.met else "MISSED"
        return f"{outcome} {self.what}: {self.value:.3f} (goal {sign} {self.target})"


def check_goals(goals: Sequence[Goal]) -> int:
    """Print every goal's outcome; the exit status: 0 when all are met, else 1."""
    print()
    for goal in goals:
        print(goal.line())
    return 0 if all(goal.met for goal in goals) else 1
