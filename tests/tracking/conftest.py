"""A real MLflow tracking server on 127.0.0.1 (SQLite backend) for the tracking tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import cloudpickle
import pytest

from hpnb.core.store import Store
from tests.tracking import objectives
from tests.waiting import patience

cloudpickle.register_pickle_by_value(objectives)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_mlflow(folder: Path, port: int) -> subprocess.Popen[bytes]:
    """``mlflow server`` on 127.0.0.1:``port``, its database and artifacts in ``folder``, once it answers."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", f"sqlite:///{folder}/mlflow.db",
               "--default-artifact-root", str(folder / "artifacts"), "--host", "127.0.0.1",
               "--port", str(port), "--workers", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=(folder / "server.log").open("wb"))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"mlflow server ended: {(folder / 'server.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError("mlflow server did not answer /health within 240 s")


def stop_mlflow(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(patience(20))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def mlflow_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URI of a real MLflow server for the whole session."""
    port = free_port()
    process = start_mlflow(tmp_path_factory.mktemp("mlflow"), port)
    yield f"http://127.0.0.1:{port}"
    stop_mlflow(process)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()
