"""Trials that span several workers (``resources.per_trial.workers``): their start, their packing,
a rank lost mid-trial, and data-parallel training that is the same training as on one rank.

1. **Start.** A 2-rank trial that makes a gloo process group from its environment, all-reduces one
   tensor and reports: seconds from the launch to rank 0's first report. hpnb is timed from the
   ``hpnb.search`` call to the first stored result's time (the report's own clock; the trial's
   stored start to that report is printed too); ``torchrun --nproc-per-node 2`` from its launch to
   rank 0's marker after the all-reduce (fresh processes: its torch import is counted, and printed
   apart); dask-pytorch-ddp's ``dispatch.run`` (one ``client.submit`` per worker, no gang, the
   fixed port 23456) from its call to the same marker. hpnb and dask-pytorch-ddp run on the same
   2 warm workers (torch imported before anything is timed: not counted). Median of the rounds.
   dask-pytorch-ddp leaves its ``RANK``, ``WORLD_SIZE`` and master in the workers' environment;
   they are removed after each of its runs, or part 4's ``workers: 1`` run would take them.
2. **Gang scheduling.** 12 trials of 2 ranks and 12 of 1 (``workers: {parameter: nodes}``, a
   ``fixed`` strategy listing them in turns), each ``sleep(1)`` then a report, on 4 single-thread
   workers: wall from the first trial's start to the last one's end (stored times) against the ideal
   packing, 36 rank-seconds / 4 workers = 9 s, and against hpnb's own placement order simulated
   with no overhead (its queue, first come first placed, gives 10 s); and each trial's overhead
   (its stored start to end less the second its objective took).
3. **A rank's worker SIGKILLed mid-trial.** A 2-rank trial of 30 steps of 0.1 s with a checkpoint
   at each; rank 1's worker process is killed after a few steps: seconds from the kill until rank 0
   of that attempt ended (its objective's own ``finally``), whether the trial was retried from its
   checkpoint and completed, and whether any (trial, step) is stored twice.
4. **Data-parallel training.** A small MLP on a fixed synthetic regression set, SGD, a global batch
   of 64: 2 ranks with ``DistributedDataParallel`` over gloo (32 rows each) against 1 rank on the
   whole batch (``workers: 1``). Each rank saves its final weights: both ranks' must be equal, and
   the two loss curves the same within float noise.

Goals: start, hpnb <= the faster of torchrun and dask-pytorch-ddp; packing <= 1.15 x ideal (and it
ends); the other rank ended within 10 s of the kill, the trial completed from its checkpoint with
no step stored twice; both ranks' weights equal, curves within 1e-4.

Usage:
    python benchmarks/distributed_trials.py [--quick] [--parts 1234]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _cluster import Goal, check_goals, print_table, ship_by_value
from distributed import Client, LocalCluster

import hpnb
from hpnb.core.store import Store
from hpnb.testing.gang_packing import makespan

ship_by_value(__name__)

PACKING_GOAL = 1.15
ENDED_GOAL = 10.0
CURVE_GOAL = 1e-4
DDP_PORT = 23456  # dask-pytorch-ddp's fixed port


# -- objectives (every rank runs them, on its worker) ---------------------------------------------
def gloo_first_report(x: float) -> dict:
    """Part 1: a gloo process group from the environment, one all-reduce, one report."""
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    total = torch.tensor([1.0])
    dist.all_reduce(total)
    hpnb.report(step=0, loss=x, total=float(total.item()))
    return {"loss": x}


def ddp_dispatched() -> float:
    """Part 1, under dask-pytorch-ddp (it made the process group): one all-reduce, then the time."""
    import torch
    import torch.distributed as dist

    total = torch.tensor([1.0])
    dist.all_reduce(total)
    return time.time()


def one_second(nodes: int, i: int) -> dict:
    """Part 2: one second of work; rank 0 reports when its objective began and ended."""
    began = time.time()
    time.sleep(1.0)
    hpnb.report(step=0, loss=float(i), began=began, ended=time.time())
    return {"loss": float(i)}


def checkpointed(x: float, folder: str, steps: int = 30) -> dict:
    """Part 3: 30 steps of 0.1 s with a checkpoint each; rank 1 leaves its pid, every rank the time
    its objective ended and the step it resumed from."""
    trial = hpnb.current_trial()
    assert trial is not None
    mark = f"{trial.attempt}-{trial.rank}"
    if trial.rank == 1:
        Path(folder, f"pid-{trial.attempt}").write_text(str(os.getpid()))
    state = hpnb.load_checkpoint() or {"step": -1}
    Path(folder, f"resumed-{mark}").write_text(str(state["step"]))
    try:
        for step in range(int(state["step"]) + 1, steps):
            hpnb.report(step=step, loss=x + step, checkpoint={"step": step})
            time.sleep(0.1)
    finally:
        Path(folder, f"ended-{mark}").write_text(repr(time.time()))
    return {"loss": x}


def ddp_train(lr: float, folder: str, steps: int = 40, batch: int = 64) -> dict:
    """Part 4: an MLP on a fixed regression set, SGD; each rank takes its slice of the global batch
    and DDP averages the gradients; the reported loss is the global batch's. Without ``RANK`` in
    the environment (hpnb's ``workers: 1`` sets none) it trains plainly in one process."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    told = "RANK" in os.environ
    if told:
        dist.init_process_group("gloo")
    rank, world = (dist.get_rank(), dist.get_world_size()) if told else (0, 1)
    data = torch.Generator().manual_seed(0)
    inputs = torch.randn(1024, 8, generator=data)
    truth = torch.randn(8, 1, generator=data)
    targets = torch.sin(inputs @ truth) + 0.05 * torch.randn(1024, 1, generator=data)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    trained = DistributedDataParallel(model) if told else model
    optimizer = torch.optim.SGD(trained.parameters(), lr=lr)
    share = batch // world
    for step in range(steps):
        rows = torch.arange(step * batch, (step + 1) * batch) % len(inputs)
        mine = rows[rank * share:(rank + 1) * share]
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(trained(inputs[mine]), targets[mine])
        loss.backward()
        optimizer.step()
        reported = loss.detach().clone()
        if told:
            dist.all_reduce(reported)
        hpnb.report(step=step, loss=float(reported.item()) / world, told=float(told))
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    torch.save(flat, Path(folder, f"weights-{world}-{rank}.pt"))
    return {"loss": float(reported.item()) / world}


TORCHRUN_SCRIPT = """\
import sys, time
from pathlib import Path
Path(sys.argv[1] + ".python").write_text(repr(time.time()))
import torch
import torch.distributed as dist
dist.init_process_group("gloo")
total = torch.tensor([1.0])
dist.all_reduce(total)
if dist.get_rank() == 0:
    Path(sys.argv[1]).write_text(repr(time.time()))
dist.destroy_process_group()
"""


# -- the cluster and searches ---------------------------------------------------------------------
def cluster(workers: int) -> Client:
    """``workers`` single-thread worker processes, torch imported on each before anything is timed."""
    local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(local, set_as_default=False)
    client.wait_for_workers(workers, timeout=120)
    client.run(_import_torch)
    return client


def _import_torch() -> None:
    import torch
    import torch.distributed

    torch.set_num_threads(1)


def close(client: Client) -> None:
    local = client.cluster
    client.close()
    if local is not None:
        local.close()


def run_search(client: Client, store: Store, name: str, objective: Callable[..., Any],
               **spec: Any) -> hpnb.Search:
    spec.setdefault("metric", "loss")
    search = hpnb.search(objective, name=name, store=store, client=client, **spec)
    search.wait(300)
    if search.state == "RUNNING":
        search.stop()
    if search.state != "COMPLETED":
        raise RuntimeError(f"search {name} ended {search.state}: {search.message}")
    return search


# -- 1. start -------------------------------------------------------------------------------------
def hpnb_start(client: Client, store: Store, name: str) -> tuple[float, float, float]:
    """Seconds from ``hpnb.search`` to the first trial's report, from that trial's stored start to
    it, and, in the running search, from the first trial's stored end to the second trial's report
    (the driver places it, asks rank 0's worker for a port, submits its ranks: a trial's start as
    dask-pytorch-ddp's ``dispatch.run`` call is its)."""
    called = time.time()
    search = run_search(client, store, name, gloo_first_report, strategy="grid", parallel=1,
                        parameters={"x": [0.5, 0.6]}, resources={"per_trial": {"workers": 2}})
    first, second = sorted(store.trials(search.experiment_id), key=lambda trial: trial.trial_id)
    [row] = store.results(search.experiment_id, trial_id=first.trial_id)
    [next_row] = store.results(search.experiment_id, trial_id=second.trial_id)
    assert row.metrics["total"] == next_row.metrics["total"] == 2.0, (row.metrics, next_row.metrics)
    return row.time - called, row.time - float(first.start or called), next_row.time - float(first.end or 0)


def torchrun_start(folder: Path) -> tuple[float, float]:
    """Seconds from launching ``torchrun --nproc-per-node 2`` to rank 0's marker, and to the
    interpreter having started (before its torch import)."""
    script = folder / "first_report.py"
    script.write_text(TORCHRUN_SCRIPT)
    marker = folder / f"marker-{time.monotonic_ns()}"
    torchrun = str(Path(sys.executable).parent / "torchrun")
    env = os.environ | {"OMP_NUM_THREADS": "1"}
    launched = time.time()
    subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2", str(script), str(marker)], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    python = float(Path(f"{marker}.python").read_text())
    return float(marker.read_text()) - launched, python - launched


def dask_ddp_start(client: Client) -> float | None:
    """Seconds from dask-pytorch-ddp's ``dispatch.run`` (every worker a rank) to rank 0's marker;
    None when it is not installed."""
    try:
        from dask_pytorch_ddp import dispatch
    except ImportError:
        return None
    called = time.time()
    futures = dispatch.run(client, ddp_dispatched, backend="gloo")
    marks = client.gather(futures)
    client.run(_forget_dispatch_environment)
    return float(marks[0]) - called


def _forget_dispatch_environment() -> None:
    """dask-pytorch-ddp leaves ``RANK``, ``WORLD_SIZE`` and the master in the worker's environment for
    good: an objective run later there would take them for its own."""
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        os.environ.pop(name, None)


def part_start(client: Client, store: Store, folder: Path, rounds: int) -> tuple[list[Goal], list[str]]:
    hpnb_runs: list[tuple[float, float, float]] = []
    torchrun_runs: list[tuple[float, float]] = []
    dask_runs: list[float] = []
    run_search(client, store, "start-warm", gloo_first_report, parameters={"x": [0.5]},
               resources={"per_trial": {"workers": 2}})
    dask_ddp_start(client)  # its warm-up too
    for n in range(rounds):  # in turns, so that the machine's noise hits all alike
        hpnb_runs.append(hpnb_start(client, store, f"start-{n}"))
        torchrun_runs.append(torchrun_start(folder))
        dask = dask_ddp_start(client)
        if dask is not None:
            dask_runs.append(dask)
    hpnb_s = statistics.median(r[2] for r in hpnb_runs)
    torchrun_s = statistics.median(r[0] for r in torchrun_runs)
    rows: list[tuple[Any, ...]] = [
        ("hpnb, a running search: a trial's end to the next trial's report", hpnb_s,
         _all(r[2] for r in hpnb_runs)),
        ("hpnb, `hpnb.search` call to the first trial's report", statistics.median(r[0] for r in hpnb_runs),
         _all(r[0] for r in hpnb_runs)),
        ("hpnb, the first trial's stored start to its report", statistics.median(r[1] for r in hpnb_runs),
         _all(r[1] for r in hpnb_runs)),
        ("torchrun --nproc-per-node 2 (fresh processes, torch import counted)", torchrun_s,
         _all(r[0] for r in torchrun_runs)),
        ("torchrun: of which until its interpreters started",
         statistics.median(r[1] for r in torchrun_runs), _all(r[1] for r in torchrun_runs)),
    ]
    if dask_runs:
        dask_s = statistics.median(dask_runs)
        rows.append(("dask-pytorch-ddp `dispatch.run` (submit per rank, port 23456, no gang)", dask_s,
                     _all(dask_runs)))
    else:
        dask_s = float("inf")
        rows.append(("dask-pytorch-ddp: not installed (pip install dask-pytorch-ddp)", "-", "-"))
    print_table(f"1. Start: a 2-rank gloo trial to its first report, median of {rounds} (workers warm, "
                "torch imported before timing)", ("launch", "median s", "rounds s"), rows)
    fastest = min(torchrun_s, dask_s)
    return [Goal("start: hpnb / the faster of torchrun and dask-pytorch-ddp", hpnb_s / fastest, 1.0)], [
        f"start: hpnb {hpnb_s:.2f} s, torchrun {torchrun_s:.2f} s, dask-pytorch-ddp {dask_s:.2f} s"]


def _all(values: Any) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


# -- 2. gang scheduling ---------------------------------------------------------------------------
def part_packing(client: Client, store: Store, pairs: int) -> tuple[list[Goal], list[str]]:
    configs = [{"nodes": nodes, "i": 2 * n + k} for n in range(pairs) for k, nodes in enumerate((2, 1))]
    started = time.time()
    search = run_search(client, store, "packing", one_second,
                        strategy={"name": "fixed", "configs": configs}, trials=len(configs),
                        parameters={"nodes": [1, 2], "i": {"type": "int", "min": 0, "max": len(configs) - 1}},
                        resources={"per_trial": {"workers": {"parameter": "nodes"}}})
    called = time.time() - started
    placed = simulated_makespan([c["nodes"] for c in configs], workers=4)
    trials = store.trials(search.experiment_id)
    assert len(trials) == len(configs) and all(t.state == "COMPLETED" for t in trials)
    sizes = [int(t.params["nodes"]) for t in trials]
    ideal = sum(sizes) / 4
    wall = max(float(t.end or 0) for t in trials) - min(float(t.start or 0) for t in trials)
    began = [float(t.metrics["began"]) for t in trials]
    ended = [float(t.metrics["ended"]) for t in trials]
    busy = max(ended) - min(began)
    overhead = [float(t.end or 0) - float(t.start or 0) - (e - b) for t, b, e in zip(trials, began, ended)]
    rows = [
        ("stored: first trial's start to last trial's end", wall, wall / ideal),
        ("objectives: first began to last ended", busy, busy / ideal),
        ("`hpnb.search` call to `wait()` returning", called, called / ideal),
        ("hpnb's placement order, simulated with no overhead", placed, placed / ideal),
        ("ideal: rank-seconds / 4 workers", ideal, 1.0),
    ]
    print_table(f"2. Gang scheduling: {sizes.count(2)} trials of 2 ranks and {sizes.count(1)} of 1, "
                "1 s each, on 4 single-thread workers", ("span", "s", "/ ideal"), rows)
    print(f"\nper trial overhead (stored start to end, less the objective's 1 s): median "
          f"{statistics.median(overhead):.3f} s, worst {max(overhead):.3f} s; 2-rank trials "
          f"{statistics.median(o for o, s in zip(overhead, sizes) if s == 2):.3f} s, 1-rank "
          f"{statistics.median(o for o, s in zip(overhead, sizes) if s == 1):.3f} s")
    return [Goal("packing: wall / ideal", wall / ideal, PACKING_GOAL)], [
        f"packing: {wall:.2f} s against {ideal:.1f} s ideal ({wall / ideal:.3f})"]


def simulated_makespan(sizes: list[int], workers: int) -> float:
    """The wall time of 1-second trials of ``sizes`` ranks placed as hpnb places them, no overhead."""
    return makespan(sizes, workers)


# -- 3. a rank's worker killed --------------------------------------------------------------------
def part_killed(client: Client, store: Store, folder: Path) -> tuple[list[Goal], list[str]]:
    marks = folder / "killed"
    marks.mkdir()
    search = hpnb.search(partial(checkpointed, folder=str(marks)), name="killed", store=store, client=client,
                         metric="loss", parameters={"x": [0.5]}, retries=2,
                         resources={"per_trial": {"workers": 2}})
    pid_file = marks / "pid-0"
    deadline = time.monotonic() + 300
    while not (pid_file.exists() and len(store.results(search.experiment_id)) >= 8):
        if time.monotonic() > deadline:
            raise RuntimeError("the 2-rank trial never reached its eighth step")
        time.sleep(0.05)
    killed = time.time()
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    search.wait(600)
    [trial] = store.trials(search.experiment_id)
    steps = [r.step for r in store.results(search.experiment_id, trial_id=trial.trial_id)]
    first = marks / "ended-0-0"
    ended = float(first.read_text()) - killed if first.exists() else float("inf")
    attempts = sorted(int(p.name.split("-")[1]) for p in marks.glob("resumed-*-0"))
    resumed = {a: int((marks / f"resumed-{a}-0").read_text()) for a in attempts}
    twice = len(steps) - len(set(steps))
    complete = sorted(set(steps)) == list(range(30))
    retried = len(attempts) >= 2 and resumed[attempts[-1]] >= 0
    events = [e.get("kind") for e in store.events(search.experiment_id)]
    rows = [
        ("rank 0 of the attempt ended, after the kill", f"{ended:.2f} s"),
        ("attempts (rank 0 resumed from step)", ", ".join(f"{a}: {resumed[a]}" for a in attempts)),
        ("trial state, retries", f"{trial.state}, {trial.retries}"),
        ("steps stored / distinct / 0..29 all there", f"{len(steps)} / {len(set(steps))} / {complete}"),
        ("events", ", ".join(dict.fromkeys(str(e) for e in events))),
    ]
    print_table("3. Rank 1's worker SIGKILLed mid-trial (2 ranks, 30 steps of 0.1 s, a checkpoint each)",
                ("what", "measured"), rows)
    whole = trial.state == "COMPLETED" and retried and complete and twice == 0
    return [Goal("killed: seconds until the other rank ended", ended, ENDED_GOAL),
            Goal("killed: retried from its checkpoint, completed, no step twice (1 = yes)", float(whole), 1.0,
                 at_most=False)], [
        f"killed: other rank ended {ended:.2f} s after; resumed from {resumed}; {twice} steps twice"]


# -- 4. data-parallel training --------------------------------------------------------------------
def part_ddp(client: Client, store: Store, folder: Path, steps: int) -> tuple[list[Goal], list[str]]:
    import torch

    marks = folder / "ddp"
    marks.mkdir()
    curves = {}
    told = {}
    for world in (2, 1):
        search = run_search(client, store, f"ddp-{world}", partial(ddp_train, folder=str(marks), steps=steps),
                            parameters={"lr": [0.1]}, resources={"per_trial": {"workers": world}})
        [trial] = store.trials(search.experiment_id)
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        curves[world] = [r.metrics["loss"] for r in rows]
        told[world] = bool(rows[0].metrics["told"])
    ranks = [torch.load(marks / f"weights-2-{rank}.pt") for rank in (0, 1)]
    single = torch.load(marks / "weights-1-0.pt")
    digests = [hashlib.sha256(w.numpy().tobytes()).hexdigest()[:12] for w in (*ranks, single)]
    equal = bool(torch.equal(ranks[0], ranks[1]))
    gap = max(abs(a - b) for a, b in zip(curves[2], curves[1], strict=True))
    weights_gap = float((ranks[0] - single).abs().max())
    table = [
        ("steps reported (2 ranks, 1 rank)", f"{len(curves[2])}, {len(curves[1])}"),
        ("loss at first / last step, 2 ranks", f"{curves[2][0]:.5f} / {curves[2][-1]:.5f}"),
        ("loss at first / last step, 1 rank", f"{curves[1][0]:.5f} / {curves[1][-1]:.5f}"),
        ("max abs difference of the curves", f"{gap:.2e}"),
        ("final weights' sha256: rank 0, rank 1, 1-rank run", ", ".join(digests)),
        ("rank 0 and rank 1 weights equal", str(equal)),
        ("max abs difference of weights, 2 ranks against 1", f"{weights_gap:.2e}"),
        ("RANK set in the trial's environment (2 ranks, `workers: 1`)", f"{told[2]}, {told[1]}"),
    ]
    print_table(f"4. Data-parallel: an MLP, SGD, global batch 64, {steps} steps: 2 ranks (DDP, gloo) "
                "against 1", ("what", "measured"), table)
    return [Goal("ddp: both ranks' weights equal (1 = yes)", float(equal), 1.0, at_most=False),
            Goal("ddp: max abs difference of the loss curves, 2 ranks against 1", gap, CURVE_GOAL)], [
        f"ddp: curves within {gap:.1e}, ranks equal {equal}"]


# -- main -----------------------------------------------------------------------------------------
def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller, faster run")
    parser.add_argument("--parts", default="1234", help="which parts to run, e.g. 13 (default: all)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    goals: list[Goal] = []
    lines: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="hpnb-bench-ranks-"))
    store = Store(folder / "hpnb.sqlite")
    try:
        if "1" in args.parts or "4" in args.parts:
            client = cluster(2)
            try:
                if "1" in args.parts:
                    found = part_start(client, store, folder, rounds=2 if args.quick else 5)
                    goals += found[0]
                    lines += found[1]
                if "4" in args.parts:
                    found = part_ddp(client, store, folder, steps=15 if args.quick else 40)
                    goals += found[0]
                    lines += found[1]
            finally:
                close(client)
        if "2" in args.parts or "3" in args.parts:
            client = cluster(4)
            try:
                if "2" in args.parts:
                    found = part_packing(client, store, pairs=6 if args.quick else 12)
                    goals += found[0]
                    lines += found[1]
                if "3" in args.parts:
                    found = part_killed(client, store, folder)
                    goals += found[0]
                    lines += found[1]
            finally:
                close(client)
    finally:
        store.close()
        shutil.rmtree(folder, ignore_errors=True)
    print()
    print("\n".join(lines))
    return check_goals(goals)


if __name__ == "__main__":
    sys.exit(main())
