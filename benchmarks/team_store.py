"""A team's store: PostgreSQL against SQLite, on this machine, in one run.

- Streaming: 4 searches' drivers (4 processes) write at once, each its own search, the way a
  driver's store writer does: one transaction per flush holding a batch of results, the trials'
  updates and the search's heartbeat. Results/s of all 4 together, from the first write until
  the last driver's last commit, every row counted back from the store.
- The Lab's views of a 10,000-trial search (200,000 results) on PostgreSQL (SQLite beside it): a
  real Jupyter server with hpnb's routes on the store (``HPNB_STORE``); the routes the experiment
  view calls when it opens (the sidebar's list, the search, the leaderboard's first page, the
  history, the curves, the parallel coordinates) and when a trial is selected (its curve, its
  line over the parallel coordinates, its log), each timed over HTTP one after the other (the
  page sends them at once: the sum is the slowest it could be).

A PostgreSQL server is started for the run on 127.0.0.1 (``hpnb.testing.postgres_server``), or the
one ``HPNB_TEST_POSTGRES`` names is used.

Goals: PostgreSQL >= 50 % of SQLite's results/s; on PostgreSQL, open < 1 s, select < 200 ms
(median of 5 rounds).

    nice -n 10 python benchmarks/team_store.py [--quick]
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from large_search_views import NAME, fill_store, start_lab

from hpnb.core.store import ResultRow, Store
from hpnb.testing.postgres_server import PostgresServer

DRIVERS = 4
TRIALS_PER_SEARCH = 8
BATCH = 2_000  # rows per flush: a driver flushes every 0.1 s, or at 5,000 rows
RATE_SHARE_GOAL, OPEN_GOAL, SELECT_GOAL = 0.5, 1.0, 0.2
ROUNDS = 5


def _drive(url: str, index: int, rows: int, start: Any) -> None:
    """One driver: its search, then ``rows`` results in flushes of :data:`BATCH`."""
    with Store(url) as store:
        exp = store.create_experiment(f"stream-{index}", {}, metric="loss", mode="min", strategy="random",
                                      budget=TRIALS_PER_SEARCH, parallel=TRIALS_PER_SEARCH)
        for trial_id in range(TRIALS_PER_SEARCH):
            store.add_trial(exp.id, trial_id, {"x": trial_id}, state="RUNNING")
        start.wait()
        seqs = dict.fromkeys(range(TRIALS_PER_SEARCH), 0)
        for first in range(0, rows, BATCH):
            batch = []
            for n in range(first, min(rows, first + BATCH)):
                trial_id = n % TRIALS_PER_SEARCH
                seqs[trial_id] += 1
                batch.append(ResultRow(trial_id, seqs[trial_id], seqs[trial_id], time.time(), 1.0 / (n + 1),
                                       {"loss": 1.0 / (n + 1)}))
            with store.batch():
                store.add_results(exp.id, batch)
                for trial_id in range(TRIALS_PER_SEARCH):
                    store.update_trial(exp.id, trial_id, last_step=seqs[trial_id])
                store.update_experiment(exp.id, heartbeat=time.time())


def streaming_rate(url: str, rows: int) -> float:
    """Results/s of :data:`DRIVERS` drivers writing ``rows`` each at once into the store at ``url``."""
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    drivers = [context.Process(target=_drive, args=(url, i, rows, start)) for i in range(DRIVERS)]
    for driver in drivers:
        driver.start()
    with Store(url) as store:
        while len(store.experiments()) < DRIVERS or sum(
                len(store.trials(e.id)) for e in store.experiments()) < DRIVERS * TRIALS_PER_SEARCH:
            time.sleep(0.05)
        began = time.perf_counter()
        start.set()
        for driver in drivers:
            driver.join()
        seconds = time.perf_counter() - began
        stored = sum(store.result_count(e.id) for e in store.experiments())
    if stored != DRIVERS * rows or any(d.exitcode for d in drivers):
        raise RuntimeError(f"{stored} of {DRIVERS * rows} results stored in {url}")
    return stored / seconds


def _get(url: str, token: str, path: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(f"{url}/hpnb/api/{path}", timeout=60) as answer:
        json.loads(answer.read() or b"null") if answer.headers.get_content_type() == "application/json" \
            else answer.read()
    return time.perf_counter() - began


def lab_times(store_url: str, trials: int, base: Path) -> tuple[float, float]:
    """Median seconds of the routes of opening the search and of selecting a trial."""
    fill_store(store_url, trials)  # type: ignore[arg-type]  # a Store takes a URL as well as a path
    base.mkdir(parents=True)
    os.environ["HPNB_STORE"] = store_url
    process, url, token = start_lab(base, base / "home")
    opener = urllib.request.build_opener()
    opener.addheaders = [("Authorization", f"token {token}")]
    urllib.request.install_opener(opener)
    search = f"experiments/{NAME}"
    opening = ["experiments", search, f"{search}/leaderboard?offset=0&limit=50", f"{search}/history",
               f"{search}/curves", f"{search}/parcoords"]
    try:
        opens, selects = [], []
        for round_ in range(ROUNDS + 1):  # the first round warms the server's caches: not counted
            took = sum(_get(url, token, path) for path in opening)
            trial = 1 + 997 * round_ % trials
            picked = sum(_get(url, token, path) for path in (
                f"{search}/curves?trial={trial}", f"{search}/parcoords?trial={trial}",
                f"{search}/trials/{trial}/logs"))
            if round_:
                opens.append(took)
                selects.append(picked)
        return statistics.median(opens), statistics.median(selects)
    finally:
        process.terminate()
        process.wait(30)
        del os.environ["HPNB_STORE"]


def main() -> int:
    quick = "--quick" in sys.argv
    rows, trials = (50_000, 2_000) if quick else (200_000, 10_000)
    given = os.environ.get("HPNB_TEST_POSTGRES")
    work = Path(tempfile.mkdtemp(prefix="hpnb-team-store-"))
    work.chmod(0o755)  # the server may run as another user (PostgreSQL refuses root)
    server = None if given else PostgresServer.start(work)
    admin = given or server.url()  # type: ignore[union-attr]

    def database(name: str) -> str:
        import psycopg

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}".encode())
            conn.execute(f"CREATE DATABASE {name}".encode())
        return admin.rsplit("/", 1)[0] + f"/{name}"

    try:
        rates = {"sqlite": streaming_rate(str(work / "stream.sqlite"), rows),
                 "postgresql": streaming_rate(database("hpnb_bench_stream"), rows)}
        print(f"results/s: {rates}", flush=True)
        views = {"sqlite": lab_times(str(work / "views.sqlite"), trials, work / "lab-sqlite"),
                 "postgresql": lab_times(database("hpnb_bench_views"), trials, work / "lab-pg")}
    finally:
        if server is not None:
            server.stop()
    return report(rates, views, rows, trials)


def report(rates: dict[str, float], views: dict[str, tuple[float, float]], rows: int, trials: int) -> int:
    share = rates["postgresql"] / rates["sqlite"]
    open_s, select_s = views["postgresql"]
    print(f"\nA team's store: {DRIVERS} drivers writing {rows:,} results each at once; the Lab's routes on a "
          f"{trials:,}-trial search (median of {ROUNDS})\n")
    print("| store | results/s (4 drivers) | open (s) | select a trial (s) |")
    print("|---|---|---|---|")
    for name in ("sqlite", "postgresql"):
        print(f"| {name} | {rates[name]:,.0f} | {views[name][0]:.3f} | {views[name][1]:.3f} |")
    goals = [(f"PostgreSQL streaming >= {RATE_SHARE_GOAL:.0%} of SQLite's", share >= RATE_SHARE_GOAL,
              f"{share:.0%}"),
             (f"open < {OPEN_GOAL} s on PostgreSQL", open_s < OPEN_GOAL, f"{open_s:.3f} s"),
             (f"select < {SELECT_GOAL} s on PostgreSQL", select_s < SELECT_GOAL, f"{select_s:.3f} s")]
    print()
    for text, met, value in goals:
        print(f"{'met ' if met else 'MISSED'}  {text}: {value}")
    return 0 if all(met for _, met, _ in goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
