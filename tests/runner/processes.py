"""Helpers for tests that start Dask scheduler and worker processes on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spawn(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    """Start a command of this Python environment (``dask ...``) with its output in ``log``."""
    executable = Path(sys.executable).parent / command[0]
    return subprocess.Popen([str(executable), *command[1:]], stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            cwd=str(ROOT))


def scheduler(port: int, log_dir: Path) -> subprocess.Popen[bytes]:
    return spawn(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                 log_dir / "scheduler.log")


def worker(address: str, log_dir: Path, index: int) -> subprocess.Popen[bytes]:
    return spawn(["dask", "worker", address, "--nthreads", "1", "--no-dashboard", "--name", f"w{index}"],
                 log_dir / f"worker{index}.log")


def workers(address: str, log_dir: Path, count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` worker processes, returned once each has registered with the scheduler (a search
    started before then may run every trial on the first one to join)."""
    started = [worker(address, log_dir, index) for index in range(count)]
    try:
        wait_for(lambda: all("Registered to" in (log_dir / f"worker{index}.log").read_text()
                             for index in range(count)))
    except AssertionError:
        stop_all(started)
        raise
    return started


def stop_all(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        process.wait(20)


def wait_for(condition: Callable[[], object], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)
