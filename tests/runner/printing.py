"""Objectives that print as training code does, and worse (shipped to Dask workers by value)."""

from __future__ import annotations

import logging
import sys
import time
import tracemalloc
from typing import Any

import hpnb

#: bytes no text encoding can make sense of, with every control character.
GARBAGE = bytes(range(256)) * 64 + b"\xff\xfe\xc3(\xed\xa0\x80"


def chatty(tag: str, lines: int = 300, pause: float = 0.002) -> dict[str, Any]:
    """Prints ``lines`` lines tagged ``tag`` and warns through ``logging`` every 50 lines."""
    log = logging.getLogger("training")
    for i in range(lines):
        print(f"{tag} line {i}")
        if i % 50 == 0:
            log.warning("%s warned at %d", tag, i)
        time.sleep(pause)
    return {"loss": float(len(tag))}


def floods(lines: int = 5000, big_mb: int = 100) -> dict[str, Any]:
    """Prints ``lines`` numbered lines, then one line of ``big_mb`` MB; returns the Python
    memory the big print itself allocated at its peak (tracemalloc)."""
    for i in range(lines):
        print(f"line {i}")
    big = "y" * (big_mb * 2**20)
    tracemalloc.start()
    print(big)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    time.sleep(0.5)  # hold the big string while the memory sampler looks
    del big
    print("after the big line")
    return {"loss": 0.0, "print_peak": float(peak)}


def garbage() -> float:
    """Writes binary garbage to stdout (bytes, and text that stands for undecodable bytes) and
    terminal colour codes to stderr."""
    sys.stdout.buffer.write(GARBAGE + b"\n")
    print(GARBAGE.decode("latin-1"))
    print(GARBAGE.decode("utf-8", "surrogateescape"))
    sys.stderr.write("\x1b[31mred alert\x1b[0m\n")
    print("readable end")
    return 0.0


def prints_and_reports(x: float, steps: int = 2000, pause: float = 0.01) -> float:
    """Prints and reports every step (a training loop that can be stopped at any step)."""
    for step in range(steps):
        print(f"step {step} x={x}")
        hpnb.report(step=step, loss=x + 1.0 / (step + 1))
        time.sleep(pause)
    return x


def fails_after_printing(x: float) -> float:
    print(f"about to fail with x={x}")
    raise ValueError(f"diverged at x={x}")


def hangs_after_printing(x: float, seconds: float = 8.0) -> float:
    """Prints, then never reports nor returns within ``seconds`` (a stuck data loader)."""
    print(f"before the hang x={x}", flush=True)
    time.sleep(seconds)
    return x


def prints_steadily(seconds: float = 3.0, rate: int = 10_000) -> dict[str, Any]:
    """Prints ``rate`` numbered lines a second for ``seconds`` seconds (in bursts of 100), and
    warns through ``logging`` every 5,000 lines."""
    start = time.perf_counter()
    printed = 0
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            print(f"steady line {printed}")
            printed += 1
        if printed % 5000 == 0:
            logging.getLogger("training").warning("steady warned at %d", printed)
        ahead = printed / rate - (time.perf_counter() - start)
        if ahead > 0:
            time.sleep(ahead)
    return {"loss": 0.0, "lines": float(printed)}
