"""Helpers for tests that start Dask scheduler and worker processes on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.waiting import DEFAULT_TIMEOUT, patience, wait_until

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
    """A ``dask scheduler`` on 127.0.0.1:``port``, returned once it accepts connections (on a busy
    machine its start takes seconds, and a client's connection attempt gives up after 10 s)."""
    process = spawn(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                    log_dir / "scheduler.log")
    try:
        wait_for(lambda: process.poll() is not None or _accepts(port))
    except AssertionError:
        stop_all([process])
        raise
    assert process.poll() is None, (log_dir / "scheduler.log").read_text()
    return process


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


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
        process.wait(patience(20))


def wait_for(condition: Callable[[], object], timeout: float = DEFAULT_TIMEOUT) -> None:
    """Wait until ``condition`` holds (see :func:`tests.waiting.wait_until`)."""
    wait_until(condition, timeout, message="condition")
