"""How soon another process reads a killed driver's search as INTERRUPTED.

A driver process runs a search; it is killed with its workers (as a kernel dies), and ``hpnb list
--json`` is run again and again until it reads INTERRUPTED. The peer, measured in the same round
on the same store: one ``hpnb list --json``. The state turns once the last heartbeat is
``STALE_AFTER`` old, so the last ``hpnb list`` may have started just before that: goal, seconds
from the kill to INTERRUPTED <= STALE_AFTER + 2 x one ``hpnb list`` (a ratio <= 1.0).

    python benchmarks/interrupted_search.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hpnb.core.summary import STALE_AFTER  # noqa: E402
from tests.jupyter.server.killed_driver import kill_driver, listed_state, start_driver  # noqa: E402


def timed_list(path: Path) -> tuple[str, float]:
    started = time.perf_counter()
    state = listed_state(path)
    return state, time.perf_counter() - started


def one_round(folder: Path) -> tuple[float, float]:
    """(seconds from the kill to INTERRUPTED, seconds of one `hpnb list`)."""
    path, driver = start_driver(folder)
    kill_driver(driver)
    killed_at = time.perf_counter()
    while timed_list(path)[0] != "INTERRUPTED":
        if time.perf_counter() - killed_at > 20 * STALE_AFTER:
            raise SystemExit("the killed driver's search never read INTERRUPTED")
    detected = time.perf_counter() - killed_at
    return detected, timed_list(path)[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"STALE_AFTER = {STALE_AFTER:g} s")
    print(f"{'round':>5} {'kill -> INTERRUPTED s':>22} {'one hpnb list s':>16} {'ratio to goal':>14}")
    ratios = []
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as folder:
            detected, listing = one_round(Path(folder))
        ratios.append(detected / (STALE_AFTER + 2 * listing))
        print(f"{number:5d} {detected:22.2f} {listing:16.2f} {ratios[-1]:14.2f}")
    median = statistics.median(ratios)
    print(f"median ratio {median:.2f}; goal <= 1.0 (kill -> INTERRUPTED <= STALE_AFTER + 2 x hpnb list)")
    return 0 if median <= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
