"""``hpnb list`` and ``hpnb show`` of a server store that cannot be reached: one line on stderr naming
the host, the port and why, a non-zero exit, and all of it within the 10 s the product promises."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hpnb.core.store import Store
from hpnb.testing.postgres_server import PostgresServer
from tests.postgres import TestServer, own_postgres_server
from tests.waiting import patience, wait_until


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[TestServer]:
    """A server of this module's own: its tests stop and start it, which must not cut the
    connections of the tests that other processes run meanwhile on the shared one."""
    yield from own_postgres_server()

#: a bound for the whole command (its start included, which a loaded machine makes slow): far below
#: the 120 s a store waits for a server that answered before, so a command that waited fails it.
PROMISED = 60.0


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _hpnb(*args: str, home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "hpnb", *args], capture_output=True, text=True, timeout=120,
                          env={**{k: v for k, v in os.environ.items() if k != "HPNB_STORE"},
                               "HPNB_HOME": str(home)})
    return done, time.monotonic() - started


def _assert_refused(done: subprocess.CompletedProcess[str], took: float, verb: str, port: int) -> None:
    assert took < patience(PROMISED)
    assert done.returncode != 0
    assert done.stderr.startswith(f"hpnb {verb}: cannot connect to the store postgresql://")
    assert f"connection refused at 127.0.0.1:{port}: is the server running" in done.stderr
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("verb", [["list"], ["show", "mlp-lr"]], ids=["list", "show"])
def test_a_port_nothing_listens_on_is_one_line_at_once(verb: list[str], tmp_path: Path) -> None:
    port = _closed_port()
    done, took = _hpnb(*verb, "--store", f"postgresql://alice:hunter2@127.0.0.1:{port}/team", home=tmp_path)
    _assert_refused(done, took, verb[0], port)


def test_a_stopped_server_is_one_line_at_once(postgres_server: TestServer, tmp_path: Path) -> None:
    server: PostgresServer | None = postgres_server.server
    if server is None:
        pytest.skip("the given server cannot be stopped here: set HPNB_TEST_POSTGRES_DIR too")
    url = postgres_server.create_database()
    with Store(url) as store:
        store.create_experiment("mlp-lr", {}, metric="m", mode="min", strategy="random", budget=2, parallel=1)
    assert _hpnb("show", "mlp-lr", "--store", url, home=tmp_path)[0].returncode == 0
    server.halt()
    try:
        done, took = _hpnb("show", "mlp-lr", "--store", url, home=tmp_path)
    finally:
        server.start_again()
    _assert_refused(done, took, "show", server.port)


def test_a_command_waiting_for_its_answer_says_on_stderr_that_the_store_went_away_and_came_back(
    postgres_server: TestServer, tmp_path: Path
) -> None:
    server: PostgresServer | None = postgres_server.server
    if server is None:
        pytest.skip("the given server cannot be stopped here: set HPNB_TEST_POSTGRES_DIR too")
    url = postgres_server.create_database()
    with Store(url) as store:
        exp = store.create_experiment("mlp-lr", {}, metric="m", mode="min", strategy="random", budget=2,
                                      parallel=1)
        store.update_experiment(exp.id, state="RUNNING", driver="gpu-7:4242", heartbeat=time.time() + 3600)
    env = {**{k: v for k, v in os.environ.items() if k != "HPNB_STORE"}, "HPNB_HOME": str(tmp_path)}
    argv = [sys.executable, "-m", "hpnb", "stop", "mlp-lr", "--store", url, "--wait", "100"]
    command = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(command.stderr or ()))  # until the process ends
    reader.start()
    try:
        with Store(url) as store:
            sent = wait_until(lambda: store.pending_commands(exp.id), message="the stop command sent")
        server.halt()
        try:
            wait_until(lambda: any("has not answered" in line for line in said), message="the wait said")
        finally:
            server.start_again()
        with Store(url) as store:
            store.answer_command(sent[0].id, "done", "stopping: 0 trials were running")
        command.wait(patience(60))
        out = command.stdout.read() if command.stdout else ""
    finally:
        command.kill()
        reader.join(60)
    port = server.port
    assert command.returncode == 0 and "stopping: 0 trials were running" in out
    assert [line.split(" since ")[0] for line in said if "has not answered" in line] == [
        f"hpnb stop: the store at 127.0.0.1:{port} has not answered"]
    assert any(line.startswith(f"hpnb stop: the store at 127.0.0.1:{port} answers again") for line in said)
