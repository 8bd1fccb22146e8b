"""Objectives the runner tests send to real Dask workers (shipped by value)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import hpnb


def quadratic(x: float, y: int = 0, steps: int = 3, sleep: float = 0.0) -> dict[str, float]:
    """Reports ``steps`` results, returns the final loss."""
    loss = (x - 0.3) ** 2 + y
    for step in range(steps):
        hpnb.report(step=step, loss=loss + 1.0 / (step + 1))
        if sleep:
            time.sleep(sleep)
    return {"loss": loss}


def with_config(config: dict[str, Any]) -> float:
    """Takes one config dict and returns a number."""
    return float((config["x"] - 0.3) ** 2)


def report_only(x: float) -> None:
    """Reports its metric and returns nothing."""
    hpnb.report(step=0, loss=x)


def flood(x: float, count: int = 3000) -> None:
    """Reports ``count`` results as fast as it can."""
    for step in range(count):
        hpnb.report(step=step, loss=x + step)


def sleepy(x: float, duration: float = 0.2) -> float:
    """Sleeps ``duration`` seconds in small reported steps, so stop requests land."""
    step = 0
    deadline = time.time() + duration
    while time.time() < deadline:
        time.sleep(0.02)
        hpnb.report(step=step, loss=x)
        step += 1
    return x


def silent_sleep(x: float, duration: float = 0.2) -> float:
    """Sleeps without reporting."""
    time.sleep(duration)
    return x


def durations(x: float, duration: float) -> float:
    time.sleep(duration)
    return x


def logged_run(x: float, log_dir: str, sleep: float = 0.3) -> float:
    """Appends one line per run (its x) to a file, so a test can count re-runs."""
    with open(Path(log_dir) / f"run-{os.getpid()}-{threading.get_ident()}.log", "a") as handle:
        handle.write(f"{x!r}\n")
    time.sleep(sleep)
    return (x - 0.3) ** 2


def crash_once(x: float, marker_dir: str, steps: int = 10, crash_at: int = 5) -> dict[str, float]:
    """Checkpoints every step; the first run of each x SIGKILLs its own worker at ``crash_at``."""
    state = hpnb.load_checkpoint()
    start = 0 if state is None else state["step"] + 1
    marker = Path(marker_dir) / f"crashed-{x!r}"
    for step in range(start, steps):
        hpnb.report(step=step, loss=x + step, started_at=start, checkpoint={"step": step})
        if step == crash_at and not marker.exists():
            marker.write_text("1")
            time.sleep(0.3)  # let the batch with this step's checkpoint leave the worker
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.01)
    return {"loss": x + steps}


def dies_waiting(x: float, marker_dir: str, steps: int = 6, die_at: int = 4) -> dict[str, float]:
    """Checkpoints every step; the first run SIGKILLs its worker a second into its wait for the
    verdict on step ``die_at`` (a decision point; the test makes the driver answer late)."""
    state = hpnb.load_checkpoint()
    start = 1 if state is None else state["step"] + 1
    marker = Path(marker_dir) / "died"
    for step in range(start, steps + 1):
        if step == die_at and not marker.exists():
            marker.write_text("1")
            threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGKILL)).start()
        hpnb.report(step=step, loss=x + 1 / step, started_at=start, checkpoint={"step": step})
    return {"loss": x + 1 / steps}


def toy_member(h0: float, h1: float, steps: int = 200, pause: float = 0.004,
               lr: float = 0.01) -> dict[str, float]:
    """A member of the PBT toy problem: gradient ascent on the surrogate, checkpointing theta."""
    from hpnb.testing import pbt_toy

    state = hpnb.load_checkpoint()
    theta, start, origin = (pbt_toy.START, 0, None) if state is None else (
        tuple(state["theta"]), state["step"], state["pid"])
    loaded_from = -1 if origin is None else origin
    q = pbt_toy.objective(theta)
    for step in range(start + 1, steps + 1):
        theta = pbt_toy.surrogate_step(theta, h0, h1, lr)
        q = pbt_toy.objective(theta)
        hpnb.report(step=step, q=q, loaded_from=loaded_from, pid=os.getpid(),
                    checkpoint={"theta": list(theta), "step": step, "pid": os.getpid()})
        time.sleep(pause)
    return {"q": q}


def learning_curve(rate: float, steps: int = 27, pause: float = 0.01) -> dict[str, float]:
    """A loss that decays towards ``1 - rate``: better rates are better from the first step."""
    loss = 1.0
    for step in range(1, steps + 1):
        loss = (1 - rate) + rate * 0.9 ** step
        hpnb.report(step=step, loss=loss)
        time.sleep(pause)
    return {"loss": loss}


def hog_memory(x: float, megabytes: int = 600) -> float:
    """Touches ``megabytes`` of memory, slowly enough for the nanny's monitor to notice."""
    import numpy as np

    blocks = []
    for _ in range(megabytes // 50):
        blocks.append(np.ones(50 * 2**20 // 8))
        time.sleep(0.05)
    return x


def steady(x: float, steps: int = 10, pause: float = 0.1) -> dict[str, float]:
    """Reports every ``pause`` seconds; its worker may come and go meanwhile."""
    for step in range(steps):
        hpnb.report(step=step, loss=x + step)
        time.sleep(pause)
    return {"loss": x + steps}


def marks_steps(x: float, marker: str, steps: int = 400, pause: float = 0.05) -> dict[str, float]:
    """Reports every ``pause`` seconds and appends each step it reaches to the file ``marker``, so a
    test sees whether its thread still runs; ``end`` once it returns (or is stopped)."""
    try:
        for step in range(steps):
            with open(marker, "a") as handle:
                handle.write(f"{step}\n")
            hpnb.report(step=step, loss=x + step)
            time.sleep(pause)
    finally:
        with open(marker, "a") as handle:
            handle.write("end\n")
    return {"loss": x + steps}


class Unpickled:
    """Captured data that notes, in ``log``, each process that unpickles it (one line per copy)."""

    def __init__(self, log: str, size: int) -> None:
        self.log, self.payload = log, bytes(size)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickled, (self.log, self.payload))


def _unpickled(log: str, payload: bytes) -> Unpickled:
    with open(log, "a") as out:
        out.write(f"{os.getpid()}\n")
    data = Unpickled.__new__(Unpickled)
    data.log, data.payload = log, payload
    return data


def uses_captured(data: Unpickled) -> Any:
    """An objective over ``data`` captured in a closure, as a notebook cell defines one."""

    def train(x: float) -> float:
        return x + len(data.payload) * 0.0

    return train
