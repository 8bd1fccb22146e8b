"""Faults that never stall a search: soaks under repeated SIGKILLs, and a kill the instant a
checkpoint report returns.

1. **Kill after a reported checkpoint.** 20 trials, each writing ``checkpoint_dir(step=1)``, then
   ``report(step=1)``, and SIGKILLing its worker the instant that report returns. Goal: every retry
   resumes from step 1, 20 of 20.
2. **Soaks.** Short trials of 10 steps, ASHA, a checkpoint every step, on a local cluster of 3 worker
   processes; each once without faults, then while a random worker process is SIGKILLed at a fixed
   interval: 400 trials with a kill every 2 s (the issue's measurement), and 600 trials with a kill
   every second (the issue's soak).
   Goals: the search completes, no trial FAILED or lost (every one COMPLETED or STOPPED by ASHA),
   every (trial, step) stored at most once and with no gap, wall time <= 1.5 x the run without kills.

The soaks run on hpnb's own local cluster (``cluster: local``, kept at its size); with
``--users-cluster``, on a plain ``LocalCluster`` the script starts as a user does, whose nannies
restart killed workers but which hpnb does not own.

Usage:
    python benchmarks/faults_soak.py [--quick] [--users-cluster]   # --quick: 120 trials, a kill every 2 s
"""

from __future__ import annotations

import os
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import cloudpickle

import hpnb
from hpnb.api import open_store
from hpnb.cluster.connect import local_client
from hpnb.core.spec.resources import Resources

cloudpickle.register_pickle_by_value(sys.modules[__name__])

WORKERS = 3
STEPS = 10
#: (trials, seconds between two kills) of each soak
SOAKS = ((400, 2.0), (600, 1.0))
QUICK_SOAKS = ((120, 2.0),)


def short_training(x: float) -> dict[str, float]:
    """Steps of 20 ms, a picklable checkpoint at each; resumes after its checkpoint."""
    state = hpnb.load_checkpoint()
    start = 0 if state is None else state["step"] + 1
    loss = 1.0 if state is None else state["loss"]
    for step in range(start, STEPS):
        time.sleep(0.02)
        loss = loss * (0.5 + x / 2)
        hpnb.report(step=step, loss=loss, checkpoint={"step": step, "loss": loss})
    return {"loss": loss}


def killed_as_it_reports(x: float) -> dict[str, float]:
    """checkpoint_dir(step=1), report(step=1), and on a fresh start its worker dies right then."""
    folder = hpnb.load_checkpoint()
    start = 0 if folder is None else int((Path(folder) / "step.txt").read_text()) + 1
    for step in range(start, 3):
        with hpnb.checkpoint_dir(step=step) as saved:
            (saved / "step.txt").write_text(str(step))
        hpnb.report(step=step, loss=x + step, started_at=start)
        if step == 1 and start == 0:
            os.kill(os.getpid(), signal.SIGKILL)
    return {"loss": x}


def killer(client: Any, stop: threading.Event, kills: list[float], every: float) -> None:
    """SIGKILL one worker process, chosen at random among those there, every ``every`` seconds."""
    rng = random.Random(0)
    while not stop.wait(every):
        try:
            pids = list(client.run(os.getpid).values())
        except Exception:  # a worker dying as we ask: ask again at the next second
            continue
        if pids:
            try:
                os.kill(rng.choice(pids), signal.SIGKILL)
                kills.append(time.monotonic())
            except ProcessLookupError:
                pass


def results_problems(store: Any, experiment_id: int) -> list[str]:
    """(trial, step) stored twice, or a gap in a trial's steps."""
    problems = []
    by_trial: dict[int, list[int]] = {}
    for row in store.results(experiment_id):
        if row.step is not None:
            by_trial.setdefault(row.trial_id, []).append(row.step)
    for trial_id, steps in by_trial.items():
        if len(steps) != len(set(steps)):
            problems.append(f"trial {trial_id}: a step stored twice {steps}")
        if sorted(steps) != list(range(len(steps))):
            problems.append(f"trial {trial_id}: steps with a gap {sorted(steps)}")
    return problems


def soak(client: Any, trials: int, kill_every: float | None, home: Path) -> dict[str, Any]:
    """One soak of ``trials``, with a kill every ``kill_every`` seconds (None: no kills)."""
    stop, kills = threading.Event(), []
    thread = threading.Thread(target=killer, args=(client, stop, kills, kill_every), daemon=True)
    store_path = home / f"soak-{trials}-{kill_every}.sqlite"
    start = time.perf_counter()
    search = hpnb.search(short_training, name="soak", store=store_path, client=client, metric="loss",
                         parameters={"x": {"min": 0.0, "max": 1.0}}, trials=trials, retries=50, seed=0,
                         early_stopping={"rule": "asha", "grace": 1, "reduction": 3, "max_t": STEPS - 1})
    if kill_every is not None:
        thread.start()
    search.wait()
    wall = time.perf_counter() - start
    stop.set()
    store = open_store(store_path)
    found = store.trials(search.experiment_id)
    states: dict[str, int] = {}
    for trial in found:
        states[trial.state] = states.get(trial.state, 0) + 1
    retries = sum(t.retries for t in found)
    return {"wall": wall, "state": search.state, "trials": len(found), "states": states, "kills": len(kills),
            "retries": retries, "problems": results_problems(store, search.experiment_id)}


def reported_checkpoints(client: Any, home: Path, repeats: int = 20) -> tuple[int, int]:
    configs = [{"x": float(i)} for i in range(repeats)]
    search = hpnb.search(killed_as_it_reports, name="reported", store=home / "reported.sqlite", client=client,
                         metric="loss", strategy={"name": "fixed", "configs": configs},
                         parameters={"x": [float(i) for i in range(repeats)]}, retries=3).wait()
    store = open_store(home / "reported.sqlite")
    resumed = 0
    for trial in store.trials(search.experiment_id):
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        if trial.state == "COMPLETED" and rows and rows[-1].metrics.get("started_at") == 2:
            resumed += 1
        else:
            print(f"  trial {trial.trial_id}: {trial.state}, retries {trial.retries}, steps "
                  f"{[(r.step, r.metrics.get('started_at')) for r in rows]}, error {trial.error}")
    events = [e for e in store.events(search.experiment_id) if e["kind"] not in ("retry", "slots")]
    if events:
        print("  events:", events[:10])
    return resumed, repeats


def users_cluster_client() -> Any:
    """A client of a plain ``LocalCluster`` of 3 single-threaded worker processes, as a user starts it."""
    from distributed import Client, LocalCluster

    return Client(LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                               dashboard_address=None))


Run = dict[str, Any]


def soak_goals(trials: int, every: float, calm: Run, faulty: Run) -> list[tuple[str, bool]]:
    """Print both runs of one soak; its goals, each met or not."""
    for label, run in (("no kills", calm), (f"a kill every {every:g} s", faulty)):
        print(f"soak of {trials}, {label}: {run['state']}, {run['trials']} trials {run['states']}, "
              f"{run['kills']} kills, {run['retries']} retries, {run['wall']:.1f} s, "
              f"problems: {run['problems'][:5] or 'none'}")
    ratio = faulty["wall"] / calm["wall"]
    print(f"soak of {trials}, time with kills / without: {ratio:.2f}")
    name = f"soak of {trials}, a kill every {every:g} s"
    return [
        (f"{name}: completes", faulty["state"] == "COMPLETED" and faulty["trials"] == trials),
        (f"{name}: no trial failed or lost", set(faulty["states"]) <= {"COMPLETED", "STOPPED"}),
        (f"{name}: no (trial, step) twice, no gap", not faulty["problems"]),
        (f"{name}: within 1.5 x the time without kills", ratio <= 1.5),
    ]


def main() -> int:
    soaks = QUICK_SOAKS if "--quick" in sys.argv else SOAKS
    users = "--users-cluster" in sys.argv
    client = users_cluster_client() if users else local_client(Resources(workers=WORKERS))
    client.wait_for_workers(WORKERS, timeout=120)
    goals = []
    with tempfile.TemporaryDirectory() as home:
        resumed, repeats = reported_checkpoints(client, Path(home))
        print(f"kill right after report(step=1) with checkpoint_dir(step=1): resumed from step 1 in "
              f"{resumed} of {repeats}")
        goals.append(("20 of 20 resumed from step 1", resumed == repeats))
        for trials, every in soaks:
            client.wait_for_workers(WORKERS, timeout=120)
            calm = soak(client, trials, None, Path(home))
            client.wait_for_workers(WORKERS, timeout=120)
            faulty = soak(client, trials, every, Path(home))
            goals += soak_goals(trials, every, calm, faulty)
    for name, met in goals:
        print(f"{name}: {'met' if met else 'MISSED'}")
    return 0 if all(met for _, met in goals) else 1


if __name__ == "__main__":
    sys.exit(main())
