"""Result streaming: 2 trials each calling ``hpnb.report`` 20,000 times as fast as they can.

End to end, from ``hpnb.search`` to ``wait()`` returning with every row in the
store (counted with ``Store.result_count``), against the floor: the raw Dask
channel hpnb uses (``Worker.log_event`` in batches of 200 + ``Client.subscribe_topic``),
2 tasks sending 20,000 rows each, timed until all have arrived in the driver.
The driver's resident memory is sampled while hpnb runs. Ray Tune's
single-node figure (4,800 results/s on 16 CPUs) is printed for reference. Then,
the Dask cluster closed, Ray Tune runs the same 2 trials through ``tune.Tuner``
(``tune.report`` 20,000 times each; 2 concurrent 1-CPU trials on a local Ray of 2
CPUs; ``ray.init`` not timed, see ``benchmarks/_ray.py``), counted by the last
``training_iteration`` of each trial, when it is installed.

Goals: all 40,000 rows stored; hpnb >= 5,000 results/s; driver memory growth <= 200 MB.

Usage:
    python benchmarks/runner_streaming.py [--quick]
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from _cluster import (
    SLOTS,
    UNIT_X,
    Goal,
    MemoryWatch,
    bench_session,
    check_goals,
    parse_args,
    print_table,
    ship_by_value,
)
from _ray import tuner_runs
from distributed import Client, get_worker

import hpnb

ship_by_value(__name__)

RATE_GOAL = 5_000.0
MEMORY_GOAL_MB = 200.0
RAY_TUNE_PUBLISHED = 4_800.0
RAW_BATCH = 200
TOPIC = "hpnb-bench-raw"


def flood(x: float, count: int = 20_000) -> None:
    """The trial: reports ``count`` results as fast as it can."""
    for step in range(count):
        hpnb.report(step=step, loss=x + step)


def ray_flood(config: dict[str, Any]) -> None:
    """The Ray Tune trial: the same reports through ``tune.report``."""
    from ray import tune

    for step in range(config["count"]):
        tune.report({"loss": config["x"] + step})


def raw_flood(task: int, count: int) -> int:
    """The floor: the same rows, batched by hand, straight onto a Dask topic."""
    worker = get_worker()
    batch: list[list[Any]] = []
    for step in range(count):
        batch.append([step + 1, step, time.time(), {"loss": float(step)}, None])
        if len(batch) == RAW_BATCH:
            worker.log_event(TOPIC, {"trial": task, "rows": batch})
            batch = []
    if batch:
        worker.log_event(TOPIC, {"trial": task, "rows": batch})
    return count


def raw_seconds(client: Client, per_task: int) -> tuple[float, int]:
    """Seconds until every raw row has reached this process, and how many did."""
    expected, received = SLOTS * per_task, [0]
    arrived = threading.Event()

    def on_event(event: tuple[float, dict[str, Any]]) -> None:
        received[0] += len(event[1]["rows"])
        if received[0] >= expected:
            arrived.set()

    client.subscribe_topic(TOPIC, on_event)
    started = time.perf_counter()
    futures = [client.submit(raw_flood, task, per_task, pure=False) for task in range(SLOTS)]
    client.gather(futures)
    arrived.wait(60)
    elapsed = time.perf_counter() - started
    client.unsubscribe_topic(TOPIC)
    return elapsed, received[0]


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    per_trial = 5_000 if args.quick else 20_000
    total = SLOTS * per_trial
    with bench_session("streaming") as bench:
        bench.warm_up(lambda x: flood(x, 10), lambda i: i)
        raw, raw_rows = raw_seconds(bench.client, per_trial)
        with MemoryWatch() as memory:
            seconds, search = bench.search(lambda x: flood(x, per_trial), trials=SLOTS, parameters=UNIT_X)
        stored = bench.store.result_count(search.experiment_id)
    ray_runs = tuner_runs(ray_flood, SLOTS, config={"count": per_trial}, warm_config={"count": 10})
    rows: list[tuple[Any, ...]] = [
        ("raw log_event + subscribe_topic (floor)", raw_rows, raw, raw_rows / raw, "-"),
        ("hpnb.search, end to end (stored)", stored, seconds, stored / seconds,
         f"{memory.start_mb:.0f} -> peak {memory.peak_mb:.0f} (+{memory.growth_mb:.0f})"),
        ("Ray Tune, published (16 CPUs, not measured)", "-", "-", RAY_TUNE_PUBLISHED, "-"),
    ]
    if ray_runs:
        ray_seconds, results = ray_runs[0]
        received = sum(int(result.metrics["training_iteration"]) for result in results)
        rows.append(("Ray Tune Tuner, end to end (received)", received, ray_seconds,
                     received / ray_seconds, "-"))
    print_table(f"Streaming: {SLOTS} trials x {per_trial:,} reports on {SLOTS} single-threaded workers",
                ("contender", "rows", "seconds", "results / s", "driver RSS MB"), rows)
    print(f"\nhpnb end to end is {seconds / raw:.1f}x the raw channel's time")
    return check_goals([
        Goal("hpnb rows stored / rows reported", stored / total, 1.0, at_most=False),
        Goal("hpnb results/s", stored / seconds, RATE_GOAL, at_most=False),
        Goal("driver memory growth MB", memory.growth_mb, MEMORY_GOAL_MB),
    ])


if __name__ == "__main__":
    sys.exit(main())
