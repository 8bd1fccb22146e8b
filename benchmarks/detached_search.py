"""Detached searches and the store's command channel, beside the in-kernel driver, in one run.

1. The cell: a fresh kernel's first ``%%hpsearch`` cell, in-kernel and ``--detach``: seconds to
   its reply (median of ``--rounds``). Goal: the detached cell returns in < 0.5 s.
2. The runner: dispatch (no-op trials), streaming (2 trials reporting 10,000 times each) and many
   slots (sleeping trials on 200 worker threads) on one scheduler, driven in this process and by a
   detached driver. Each is timed as the driver sees it (the first trial's start to the last
   trial's end, from the store), so the detached process's own start does not count. Goal: the
   detached driver within 5 % of the in-kernel one on each.
3. Commands: each kind sent to a live detached search through the store, from this process (the
   path of the cell's buttons and the Python handle), from JupyterLab (the authenticated route the
   Lab's buttons post to, on a real Jupyter server) and from the ``hpnb`` command line; latency
   from sending to the driver's answer (the CLI's includes its own start). Goal: p95 <= 0.5 s
   for each kind from each of the three, and for the driver's own part (answered - created).
4. The kernel killed (SIGKILL, its whole process group) 30 s into a detached search of 24 trials
   x 20 steps on 2 workers: the search completes with no trial lost or run twice and every step
   stored once; a new kernel attaches: its cell's reply, and when its dashboard shows the search.
   Goal: the dashboard within 1 s of the cell's return.

    python benchmarks/detached_search.py [--rounds N] [--quick] [--parts 1234]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _cluster import Goal, check_goals, print_table, ship_by_value
from distributed import Client, LocalCluster
from large_search_views import start_lab

import hpnb
from hpnb.api import Search
from hpnb.core.store.commands import CommandRefused
from tests.jupyter.kernel_session import KernelSession

ship_by_value(__name__)

UNIT_X = {"x": {"min": 0.0, "max": 1.0}}
#: turns of each runner case, in-kernel then detached (the median of each is compared)
TURNS = 5
OBJECTIVE = textwrap.dedent("""\
    import time
    import hpnb

    def train(x, steps=20):
        for step in range(steps):
            hpnb.report(step=step, loss=x + 1.0 / (step + 1))
            time.sleep(0.05)
        return {"loss": x}
    """)


def noop(x: float) -> float:
    return 0.0


def stream(x: float, reports: int = 10_000) -> None:
    for step in range(reports):
        hpnb.report(step=step, loss=x)


def sleep_one(x: float) -> float:
    time.sleep(1.0)
    return x


def steps_with_checkpoints(x: float, steps: int = 400) -> float:
    state = hpnb.load_checkpoint() or {"step": 0}
    for step in range(state["step"] + 1, steps + 1):
        time.sleep(0.1)
        hpnb.report(step=step, loss=x / step, checkpoint={"step": step})
    return x


# -- 1. the cell ---------------------------------------------------------------------------
def cell_reply(detach: bool) -> float:
    """Seconds from a fresh kernel's first ``%%hpsearch`` cell to its reply."""
    with tempfile.TemporaryDirectory() as home:
        session = KernelSession(Path(home))
        try:
            session.run("%load_ext hpnb\n" + OBJECTIVE)
            flag = " --detach" if detach else ""
            cell = (f"%%hpsearch train --name cold --trials 4{flag}\nmetric: loss\nparameters:\n"
                    "  x: {min: 0.0, max: 1.0}\nresources: {workers: 2}\n")
            reply, returned = session.execute(cell)
            assert reply["content"]["status"] == "ok", reply["content"]
            hpnb.load("cold", store=Path(home) / "hpnb.sqlite").wait(120)
            session.run("import hpnb.cluster.connect as c; c.shutdown_local()")
            return returned
        finally:
            session.close()


# -- 2. the runner -------------------------------------------------------------------------
def driver_seconds(search: Search) -> float:
    """The first trial's start to the last trial's end (or last result), as stored."""
    trials = search.store.trials(search.experiment_id)
    start = min(t.start for t in trials if t.start is not None)
    end = max(t.end for t in trials if t.end is not None)
    return float(end - start)


def run_search(store: Path, client: Client, detach: bool, name: str, objective: Callable[..., Any],
               **spec: Any) -> float:
    spec.setdefault("parameters", UNIT_X)
    search = hpnb.search(objective, name=name, store=store, client=client, metric="loss", strategy="random",
                         detach=detach, **spec)
    if search.wait(600).state != "COMPLETED":
        raise RuntimeError(f"{name} ended {search.state}: {search.message}")
    return driver_seconds(search)


def runner_rows(folder: Path, quick: bool) -> tuple[list[tuple[Any, ...]], list[Goal]]:
    trials = 150 if quick else 500  # the dispatch benchmark's own count
    cases: list[tuple[str, Callable[..., Any], dict[str, Any], int]] = [
        (f"dispatch: {trials} no-op trials, 2 slots", noop, {"trials": trials}, 2),
        ("streaming: 2 trials x 10,000 reports", stream, {"trials": 2}, 2),
        ("many slots: 400 one-second trials, 200 slots", sleep_one, {"trials": 400}, 200),
    ]
    rows, goals = [], []
    for label, objective, spec, slots in cases:
        with LocalCluster(n_workers=2, threads_per_worker=slots // 2, processes=True,
                          dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
            seconds: dict[bool, list[float]] = {False: [], True: []}
            for turn in range(TURNS):  # in turns, so that the machine's noise hits both alike
                for detach in (False, True):
                    name = f"{objective.__name__}-{int(detach)}-{turn}"
                    seconds[detach].append(run_search(folder / "hpnb.sqlite", client, detach, name,
                                                      objective, parallel=slots, **spec))
        kernel, detached = statistics.median(seconds[False]), statistics.median(seconds[True])
        rows.append((label, kernel, detached, detached / kernel))
        goals.append(Goal(f"{label}: detached / in-kernel", detached / kernel, 1.05))
    return rows, goals


# -- 3. commands ---------------------------------------------------------------------------
def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


#: where a command is sent from, in the table's order.
SOURCES = ("this process", "JupyterLab", "hpnb CLI")


def command_rows(folder: Path, repeats: int) -> tuple[list[tuple[Any, ...]], list[Goal]]:
    store_path = folder / "hpnb.sqlite"
    (folder / "lab").mkdir()
    lab, lab_url, token = start_lab(folder / "lab", folder)  # a Jupyter server on the same store
    search = hpnb.search(steps_with_checkpoints, name="steered", store=store_path, metric="loss",
                         strategy="random", trials=1000, parallel=2, resources={"workers": 2},
                         parameters={"x": {"min": 1.0, "max": 2.0}}, detach=True)
    senders: dict[str, Callable[[str, int | None], bool]] = {
        "this process": lambda kind, value: _here(search, kind, value),
        "JupyterLab": lambda kind, value: _lab(lab_url, token, search.name, kind, value),
        "hpnb CLI": lambda kind, value: _cli(store_path, kind, search.name, value),
    }
    took: dict[str, dict[str, list[float]]] = {source: {} for source in SOURCES}

    def timed(kind: str, value: int | None, source: str) -> None:
        """Time one command; one refused (a trial that ended meanwhile) is not counted."""
        started = time.perf_counter()
        if senders[source](kind, value):
            took[source].setdefault(kind, []).append(time.perf_counter() - started)

    try:
        running = _wait_running_with_checkpoint(search)
        for _ in range(repeats):
            for source in SOURCES:
                timed("extend", 1, source)
                timed("parallel", 2, source)
                trial = running()
                timed("pause_trial", trial, source)
                _wait_state(search, trial, "PAUSED")
                timed("resume_trial", trial, source)
                stopped = running()
                timed("stop_trial", stopped, source)
                _wait_state(search, stopped, "STOPPED")  # not taken for a running trial by the next turn
    finally:
        lab.terminate()
        lab.wait(30)
        search.command("stop")
        search.wait(120)
    driver_part = _driver_part(store_path)
    kinds = list(took["this process"])
    rows = [(kind, *(p95(took[source][kind]) for source in SOURCES[:2]), p95(driver_part[kind]),
             p95(took["hpnb CLI"][kind])) for kind in kinds]
    goals = [Goal(f"{kind}: p95 from {source} (s)", p95(took[source][kind]), 0.5)
             for source in SOURCES for kind in kinds]
    goals += [Goal(f"{kind}: p95 of the driver's part, all sources (s)", p95(driver_part[kind]), 0.5)
              for kind in kinds]
    return rows, goals


def _here(search: Search, kind: str, value: int | None) -> bool:
    try:
        search.command(kind, value)
    except CommandRefused:
        return False
    return True


def _lab(url: str, token: str, name: str, kind: str, value: int | None) -> bool:
    """Post the command as the Lab's buttons do; False when the driver refused it. An answer still
    pending after the route's wait counts (at that wait): it was not answered in time."""
    request = urllib.request.Request(f"{url}/hpnb/api/experiments/{name}/commands", method="POST",
                                     data=json.dumps({"kind": kind, "value": value}).encode(),
                                     headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            return True
    except urllib.error.HTTPError as refused:
        if refused.code == 409:
            return False
        raise


def _driver_part(store: Path) -> dict[str, list[float]]:
    """Seconds from each command's row to its answer, by kind (read from the store's table)."""
    import sqlite3

    found: dict[str, list[float]] = {}
    with sqlite3.connect(store) as conn:
        for kind, seconds in conn.execute("SELECT kind, answered - created FROM commands WHERE answered "
                                          "IS NOT NULL AND kind != 'stop'"):
            found.setdefault(kind, []).append(float(seconds))
    return found


def _cli(store: Path, kind: str, name: str, value: int | None) -> bool:
    verb = {"extend": ["extend", name, str(value)], "parallel": ["parallel", name, str(value)],
            "pause_trial": ["pause", name, "--trial", str(value)],
            "resume_trial": ["resume", name, "--trial", str(value)],
            "stop_trial": ["stop", name, "--trial", str(value)]}[kind]
    done = subprocess.run([sys.executable, "-m", "hpnb", *verb, "--store", str(store)],
                          capture_output=True, text=True)
    return done.returncode == 0


def _wait_running_with_checkpoint(search: Search) -> Callable[[], int]:
    def running() -> int:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for trial in search.store.trials(search.experiment_id):
                if trial.state == "RUNNING" and trial.checkpoint:
                    return trial.trial_id
            time.sleep(0.05)
        raise RuntimeError("no running trial with a checkpoint")

    running()
    return running


def _wait_state(search: Search, trial_id: int, state: str) -> None:
    deadline = time.monotonic() + 60
    while search.store.trial(search.experiment_id, trial_id).state != state:
        if time.monotonic() > deadline:
            raise RuntimeError(f"trial {trial_id} never became {state}")
        time.sleep(0.02)


# -- 4. the kernel killed ------------------------------------------------------------------
KILLED_CELL = ("%%hpsearch train --name survives --detach\nmetric: loss\ntrials: 24\nparallel: 2\n"
               "parameters:\n  x: {min: 0.0, max: 1.0}\nresources: {workers: 2}\n")
SLOW = OBJECTIVE.replace("time.sleep(0.05)", "time.sleep(0.25)")


def killed_kernel_rows(folder: Path) -> tuple[list[tuple[Any, ...]], list[Goal]]:
    first = KernelSession(folder)
    first.run("%load_ext hpnb\n" + SLOW)
    first.execute(KILLED_CELL)
    time.sleep(30)
    pid = first.manager.provisioner.process.pid  # type: ignore[union-attr]
    os.killpg(os.getpgid(pid), signal.SIGKILL)
    first.client.stop_channels()
    second = KernelSession(folder)
    try:
        second.run("%load_ext hpnb")
        sent = time.perf_counter()
        _, returned = second.execute("%hpsearch attach survives")
        shown = _first_title(second, sent)
    finally:
        second.close()
    search = hpnb.load("survives", store=folder / "hpnb.sqlite")
    state = search.wait(600).state
    trials = search.store.trials(search.experiment_id)
    steps = Counter((r.trial_id, r.step) for r in search.store.results(search.experiment_id))
    lost = 24 - sum(t.state == "COMPLETED" for t in trials)
    twice = sum(t.retries for t in trials)
    rows = [("24 x 20 steps, kernel killed at 30 s", state, lost, twice, len(steps), max(steps.values()),
             returned, shown - returned)]
    goals = [Goal("kernel killed: trials lost or run twice", lost + twice, 0),
             Goal("kernel killed: a step stored twice", max(steps.values()) - 1, 0),
             Goal("attach: dashboard after the cell's return (s)", shown - returned, 1.0)]
    return rows, goals


def _first_title(session: KernelSession, sent: float) -> float:
    """Seconds from ``sent`` until the attached dashboard's title names the running search."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for comm_id, state in session.widget_comms("HTMLModel"):
            values = [state.get("value", ""), *session.updates(comm_id, "value")]
            if any("<b>survives</b>" in value and "RUNNING" in value for value in values):
                return time.perf_counter() - sent
        time.sleep(0.02)
    raise RuntimeError("the attached dashboard never showed the running search")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--parts", default="1234", help="the parts to run (default all: 1234)")
    args = parser.parse_args()
    goals: list[Goal] = []
    if "1" in args.parts:
        goals += cell_part(args.rounds)
    if "2" in args.parts:
        with tempfile.TemporaryDirectory(prefix="hpnb-bench-detached-") as folder:
            rows, found = runner_rows(Path(folder), args.quick)
        print_table("2. The runner, seconds as the driver sees them (median of 5 turns)",
                    ("case", "in-kernel s", "detached s", "ratio"), rows)
        goals += found
    if "3" in args.parts:
        with tempfile.TemporaryDirectory(prefix="hpnb-bench-commands-") as folder:
            rows, found = command_rows(Path(folder), 3 if args.quick else 10)
        print_table("3. Commands to a detached search: p95 seconds to the driver's answer",
                    ("command", "from this process", "from JupyterLab", "driver's part",
                     "hpnb CLI (with its start)"), rows)
        goals += found
    if "4" in args.parts:
        with tempfile.TemporaryDirectory(prefix="hpnb-bench-killed-") as folder:
            rows, found = killed_kernel_rows(Path(folder))
        print_table("4. The kernel killed 30 s into a detached search",
                    ("search", "state", "lost", "run twice", "steps stored", "most copies of a step",
                     "attach cell s", "dashboard after it s"), rows)
        goals += found
    return check_goals(goals)


def cell_part(rounds: int) -> list[Goal]:
    replies = {detach: sorted(cell_reply(detach) for _ in range(rounds)) for detach in (False, True)}
    print_table("1. A fresh kernel's first cell: seconds to its reply", ("cell", "median", "max"),
                [("in-kernel", statistics.median(replies[False]), replies[False][-1]),
                 ("--detach", statistics.median(replies[True]), replies[True][-1])])
    return [Goal("detached cell reply, median (s)", statistics.median(replies[True]), 0.5)]


if __name__ == "__main__":
    sys.exit(main())
