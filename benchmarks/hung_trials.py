"""Hung trials under ``trial_timeout: 2s``: how long until they are FAILED, and how soon the next
search on the same local cluster starts its trials (the worker holding a hung thread is restarted).

Goals: FAILED within 4 s of the trial's start; the next search's trials all started within 10 s.

    python benchmarks/hung_trials.py [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import cloudpickle

import hpnb
from hpnb.cluster.connect import local_client, shutdown_local
from hpnb.core.spec.resources import Resources
from hpnb.core.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.runner import training_code

cloudpickle.register_pickle_by_value(training_code)
FIXED = {"name": "fixed", "configs": [{"x": 0.1}, {"x": 0.2}]}


def _all_started(store: Store, experiment_id: int) -> bool:
    trials = store.trials(experiment_id)
    return bool(trials) and all(t.start is not None for t in trials)


def one_round(store: Store, client: object) -> tuple[float, float]:
    """Seconds from a hung trial's start to FAILED (the slower of two), then until the next
    search's trials have all started."""
    hung = hpnb.search(training_code.hangs, name="hung", store=store, client=client, metric="loss",
                       strategy=FIXED, parameters={"x": [0.1, 0.2]}, trial_timeout="2s", retries=0,
                       max_failures=10, overwrite=True).wait(60)
    failed_after = max(t.end - t.start for t in store.trials(hung.experiment_id))
    started = time.monotonic()
    after = hpnb.search(training_code.returns_numpy, name="after", store=store, client=client,
                        metric="loss", strategy=FIXED, parameters={"x": [0.1, 0.2]}, overwrite=True)
    while not _all_started(store, after.experiment_id):
        time.sleep(0.02)
    next_started = time.monotonic() - started
    after.wait(60)
    return failed_after, next_started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    client = local_client(Resources(workers=2))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.rounds):
            with Store(Path(folder) / f"{i}.sqlite") as store:
                rows.append(one_round(store, client))
    shutdown_local()
    print("| round | hung trial FAILED after (s) | next search's trials started after (s) |")
    print("|---|---|---|")
    for i, (failed, started) in enumerate(rows):
        print(f"| {i} | {failed:.2f} | {started:.2f} |")
    worst_failed, worst_started = max(r[0] for r in rows), max(r[1] for r in rows)
    ok = worst_failed <= 4.0 and worst_started <= 10.0
    print(f"{'met' if ok else 'MISSED'}  FAILED within {worst_failed:.2f} s (goal <= 4); "
          f"next search started within {worst_started:.2f} s (goal <= 10)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
