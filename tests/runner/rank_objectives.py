"""Objectives of trials that span several workers: each rank says what it was told in a file of
its own (the tests' workers share this machine's disk)."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import hpnb

TOLD = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT",
        "NCCL_DEBUG", "GLOO_SOCKET_IFNAME")


def _say(folder: str, x: float) -> dict[str, object]:
    trial = hpnb.current_trial()
    assert trial is not None
    said = {"trial": trial.trial_id, "attempt": trial.attempt, "x": x, "pid": os.getpid(),
            "rank": trial.rank, "world_size": trial.world_size, **{k: os.environ.get(k) for k in TOLD}}
    Path(folder, f"{trial.trial_id}-{trial.attempt}-{trial.rank}.json").write_text(json.dumps(said))
    return said


def told_environment(x: float, folder: str, steps: int = 4, pause: float = 0.05, **_: object) -> dict:
    """Every rank reports its rank at every step; only rank 0's reports may reach the store."""
    said = _say(folder, x)
    for step in range(steps):
        hpnb.report(step=step, loss=x + step, rank=int(str(said["RANK"])), world=int(str(said["WORLD_SIZE"])))
        time.sleep(pause)
    return {"loss": x}


def one_rank_fails(x: float, folder: str, steps: int = 200, **_: object) -> dict:
    """With ``x`` of 0.5 or more, rank 1 raises at its second step; rank 0 would go on for long."""
    said = _say(folder, x)
    for step in range(steps):
        if said["RANK"] == "1" and step == 1 and x >= 0.5:
            raise ValueError("rank 1 cannot go on")
        hpnb.report(step=step, loss=x)
        time.sleep(0.05)
    return {"loss": x}


def all_reduced(x: float, folder: str, **_: object) -> dict:
    """A gloo process group from the environment, as DDP and the Trainer make it: the sum of the
    ranks, all-reduced, is the trial's metric."""
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    _say(folder, x)
    dist.init_process_group("gloo")
    total = torch.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(total)
    hpnb.report(step=0, loss=x, total=float(total.item()), world=dist.get_world_size())
    return {"loss": x}


def checkpointed(x: float, folder: str, steps: int = 30, **_: object) -> dict:
    """Every rank resumes from the trial's checkpoint and reports one; rank 1 leaves its process id
    for the test to kill its worker."""
    said = _say(folder, x)
    if said["RANK"] == "1":
        Path(folder, f"pid-{said['attempt']}").write_text(str(said["pid"]))
    state = hpnb.load_checkpoint() or {"step": -1}
    for step in range(int(state["step"]) + 1, steps):
        hpnb.report(step=step, loss=x + step, checkpoint={"step": step})
        time.sleep(0.1)
    return {"loss": x}


def _gloo() -> Any:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo")  # from MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    return dist


def rank_1_never_joins(x: float, **_: object) -> dict:
    """Rank 0 makes a process group; rank 1 returns without joining it."""
    if hpnb.current_trial().rank == 1:
        return {"loss": x}
    _gloo()
    return {"loss": x}


def port_taken_on_first_attempt(x: float, folder: str, **_: object) -> dict:
    """On the first attempt, something else listens on rank 0's port before it does."""
    said = _say(folder, x)
    if said["attempt"] == 0 and said["RANK"] == "0":
        with socket.socket() as taken:  # no SO_REUSEADDR: as another program's server would hold it
            taken.bind((os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])))
            taken.listen()
            _gloo()
    dist = _gloo()
    dist.barrier()
    hpnb.report(step=0, loss=x)
    return {"loss": x}


def rank_1_hangs(x: float, **_: object) -> dict:
    """Below x = 0.5, rank 1 hangs (no report, no collective) while rank 0 waits for it in an
    all_reduce."""
    import torch

    dist = _gloo()
    if hpnb.current_trial().rank == 1 and x < 0.5:
        time.sleep(90)  # past its peer's collective timeout (half of 120 s)
        return {"loss": x}
    dist.all_reduce(torch.ones(1))
    return {"loss": x}
