"""Large checkpoints: 2 trials x 4 steps, each step checkpointing a 400 MB numpy array, on `cluster: local`.

The search runs on hpnb's own local cluster (2 worker processes; the scheduler lives in this
process, as in a notebook). It is measured against the same process writing the same bytes
to the same disk with ``numpy.save`` (8 files of 400 MB, in the same run), and against the
same search without checkpoints. The driver process's RSS is sampled every 10 ms: its peak
during the search minus its RSS just before.

Goals: peak RSS growth of this process <= 100 MB; search wall time / ``numpy.save`` time <= 1.5.
Then the same search with 1 GB checkpoints must complete (``--no-gigabyte`` skips it).

Usage:
    nice python benchmarks/checkpoints_large.py [--quick] [--no-gigabyte]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import psutil

import hpnb
from hpnb.core.store import Store

cloudpickle.register_pickle_by_value(sys.modules[__name__])

MB = 1024 * 1024
TRIALS, STEPS = 2, 4
RSS_GOAL_MB, TIME_GOAL = 100, 1.5


def trains(x: float, megabytes: int, steps: int = STEPS, checkpoint: bool = True) -> float:
    """A training loop whose state is ``megabytes`` of float32, checkpointed every step."""
    state = hpnb.load_checkpoint()
    start = 0 if state is None else state["step"] + 1
    weights = np.full(megabytes * MB // 4, x, dtype=np.float32)
    for step in range(start, steps):
        weights += 1.0
        hpnb.report(step=step, loss=float(x + step),
                    checkpoint={"step": step, "w": weights} if checkpoint else None)
    return float(x + steps)


class PeakRss:
    """Samples this process's RSS every 10 ms while in the block; ``growth_mb`` = peak - start."""

    def __enter__(self) -> PeakRss:
        self.process = psutil.Process()
        self.start = self.peak = self.process.memory_info().rss
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.done.wait(0.01):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        self.thread.join()

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / MB


def run_search(home: Path, name: str, megabytes: int, checkpoint: bool = True) -> tuple[float, float, str]:
    """Seconds, peak RSS growth (MB) and final state of one search of TRIALS x STEPS (with what the
    checkpoint store holds at its end, and any checkpoint that failed)."""
    store = Store(home / "hpnb.sqlite")
    shutil.rmtree(home / "checkpoints", ignore_errors=True)
    with PeakRss() as rss:
        began = time.perf_counter()
        search = hpnb.search(partial(trains, megabytes=megabytes, checkpoint=checkpoint), name=name,
                             store=store, metric="loss", resources={"workers": TRIALS}, parallel=TRIALS,
                             strategy={"name": "fixed", "configs": [{"x": 0.0}, {"x": 1.0}]},
                             parameters={"x": [0.0, 1.0]}, overwrite=True)
        search.wait(1800)
        seconds = time.perf_counter() - began
    failed = sum(e["kind"] == "checkpoint_failed" for e in store.events(search.experiment_id))
    kept = sum(f.stat().st_size for f in (home / "checkpoints").rglob("*") if f.is_file()) / MB
    state = f"{search.state} {search.message or ''}".strip()
    return seconds, rss.growth_mb, f"{state}; {kept:,.0f} MB kept; {failed} failed"


def numpy_save_seconds(folder: Path, megabytes: int, latest_only: bool = False) -> float:
    """Seconds this process takes to ``numpy.save`` TRIALS x STEPS arrays of ``megabytes`` to ``folder``
    (``latest_only``: each file replaces its trial's previous one, as the checkpoint store keeps 1)."""
    folder.mkdir(parents=True, exist_ok=True)
    weights = np.full(megabytes * MB // 4, 1.0, dtype=np.float32)
    began = time.perf_counter()
    for index in range(TRIALS * STEPS):
        with open(folder / f"w-{index}.npy", "wb") as handle:
            np.save(handle, weights)  # no fsync: neither the checkpoint store nor numpy.save's users sync
        if latest_only and index >= TRIALS:
            os.unlink(folder / f"w-{index - TRIALS}.npy")
    seconds = time.perf_counter() - began
    shutil.rmtree(folder)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 MB checkpoints instead of 400 MB")
    parser.add_argument("--no-gigabyte", action="store_true", help="skip the 1 GB run")
    args = parser.parse_args()
    size = 100 if args.quick else 400
    home = Path(tempfile.mkdtemp(prefix="hpnb-bench-ckpt-"))
    os.environ["HPNB_HOME"] = str(home)
    try:
        run_search(home, "warm-up", 1, checkpoint=False)  # the cluster starts once, outside the figures
        plain, plain_rss, plain_state = run_search(home, "no-checkpoints", size, checkpoint=False)
        saved = numpy_save_seconds(home / "numpy-save", size)
        latest = numpy_save_seconds(home / "numpy-save", size, latest_only=True)
        seconds, rss, state = run_search(home, "checkpoints", size)
        rows = [("search, no checkpoints", plain, plain_rss, plain_state),
                (f"numpy.save of {TRIALS * STEPS} x {size} MB, this process", saved, 0.0, "-"),
                ("the same, each file replacing its trial's previous one", latest, 0.0, "-"),
                (f"search, {size} MB checkpoints", seconds, rss, state)]
        if not args.no_gigabyte:
            rows.append(("search, 1 GB checkpoints", *run_search(home, "gigabyte", 1024)))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("| run | wall s | / numpy.save | driver peak RSS growth MB | state; checkpoints kept at the end |\n"
          "|---|---|---|---|---|")
    for label, wall, growth, final in rows:
        print(f"| {label} | {wall:.1f} | {wall / saved:.2f} | {growth:+.0f} | {final} |")
    met = rss <= RSS_GOAL_MB and seconds / saved <= TIME_GOAL and all(r[3].startswith("COMPLETED")
                                                                        for r in rows if r[3] != "-")
    print(f"\ngoals: RSS growth {rss:+.0f} MB (<= {RSS_GOAL_MB}), time {seconds / saved:.2f} x numpy.save "
          f"(<= {TIME_GOAL}), every search COMPLETED: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
