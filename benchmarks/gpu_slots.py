"""Fake GPUs: how well hpnb keeps 4 "GPUs" busy with trials of log-normal length.

A local cluster is given ``gpus: [0, 1, 2, 3]`` (no GPU is needed: the ids are only handed out)
and trials ask ``gpu: 1`` (4 in flight), then ``gpu: 0.5`` (8 in flight). Each trial sleeps a
duration drawn once from a seeded log-normal table (median 0.5 s, sigma 0.5) and notes the
``CUDA_VISIBLE_DEVICES`` its process saw. Utilization is the busy time of the devices (the sum of
the durations) over the slots x the search's wall time; the greedy schedule's time (no overhead,
each trial in order on the first free slot) over hpnb's says how close hpnb comes to it (the
grid may order the trials otherwise, so it can exceed 1).

Goals: greedy / hpnb >= 0.95; trials in flight at most 4 (gpu: 1) and 8
(gpu: 0.5), each seeing one id.

Usage:
    python benchmarks/gpu_slots.py [--quick]     # --quick: 40 trials
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _cluster import Goal, check_goals, parse_args, print_table, ship_by_value

import hpnb
from hpnb.cluster.connect import LocalShape, close_client_and_cluster, start_local
from hpnb.core.spec.resources import parse_resources
from hpnb.core.store import Store

ship_by_value(__name__)

GPUS = [0, 1, 2, 3]
_draw = random.Random(20261202)
DURATIONS = [_draw.lognormvariate(math.log(0.5), 0.5) for _ in range(200)]


def on_gpu(i: int, log: str) -> float:
    """The trial: holds its device for the ``i``-th duration, and notes what it saw."""
    start = time.time()
    time.sleep(DURATIONS[i])
    with Path(log).open("a") as file:
        file.write(json.dumps({"devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "start": start,
                               "end": time.time()}) + "\n")
    return DURATIONS[i]


def greedy_makespan(durations: list[float], slots: int) -> float:
    free = [0.0] * slots
    for duration in durations:
        heapq.heappush(free, heapq.heappop(free) + duration)
    return max(free)


def run(share: float, trials: int, folder: Path) -> list[Any]:
    resources = {"per_trial": {"gpu": share}, "gpus": GPUS}
    slots = round(len(GPUS) / share)
    log = folder / f"held-{share}.log"
    client = start_local(LocalShape.from_resources(parse_resources(resources)))
    store = Store(folder / f"gpu-{share}.sqlite")
    try:
        started = time.perf_counter()
        search = hpnb.search(lambda i: on_gpu(i, str(log)), store=store, client=client, name="gpus",
                             metric="loss", resources=resources, parallel=2 * slots,
                             strategy={"name": "grid"}, parameters={"i": list(range(trials))}).wait()
        wall = time.perf_counter() - started
    finally:
        store.close()
        close_client_and_cluster(client)
    if search.state != "COMPLETED":
        raise RuntimeError(f"search ended {search.state}: {search.message}")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    edges = sorted([(r["start"], 1) for r in records] + [(r["end"], -1) for r in records])
    in_flight = max(itertools.accumulate(step for _, step in edges))
    one_id = all(len(r["devices"].split(",")) == 1 for r in records)
    ideal = greedy_makespan(DURATIONS[:trials], slots)
    busy = sum(r["end"] - r["start"] for r in records) / (slots * wall)
    return [f"gpu: {share:g}", trials, slots, in_flight, one_id, ideal, wall, ideal / wall, busy]


def main() -> int:
    args = parse_args(__doc__ or "")
    trials = 40 if args.quick else 200
    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    with tempfile.TemporaryDirectory(prefix="hpnb-gpu-slots-") as folder:
        rows = [run(share, trials, Path(folder)) for share in (1.0, 0.5)]
    print_table("fake GPUs 0-3, trials of log-normal length",
                ["per trial", "trials", "slots", "most in flight", "one id each", "greedy s", "hpnb s",
                 "greedy / hpnb", "busy / (slots x wall)"], rows)
    return check_goals([Goal(f"greedy schedule's time / hpnb's, {row[0]}", row[7], 0.95, at_most=False)
                        for row in rows]
                       + [Goal(f"most in flight, {row[0]}", row[3], row[2]) for row in rows])


if __name__ == "__main__":
    sys.exit(main())
