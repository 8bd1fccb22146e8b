"""A server store that cannot be reached: one clear error at once when it never answered, a said
wait when it answered and then went away (a real server stopped and started again on its port)."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest

from hpnb.core.store import ExperimentRecord, Store, StoreUnreachable
from hpnb.testing.postgres_server import PostgresServer
from tests.postgres import TestServer, own_postgres_server
from tests.waiting import patience, wait_until


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[TestServer]:
    """A server of this module's own: its tests stop and start it, which must not cut the
    connections of the tests that other processes run meanwhile on the shared one."""
    yield from own_postgres_server()

NewExperiment = Callable[..., ExperimentRecord]

#: what the product promises for a store that never answered: one error within this many seconds.
PROMISED = 10.0


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield int(listener.getsockname()[1])


@pytest.fixture
def restartable(postgres_server: TestServer) -> Iterator[PostgresServer]:
    """The tests' server, which these tests stop and start again (always started again after)."""
    if postgres_server.server is None:
        pytest.skip("the given server cannot be stopped here: set HPNB_TEST_POSTGRES_DIR too")
    yield postgres_server.server
    try:
        postgres_server.sql("SELECT 1")
    except Exception:
        postgres_server.server.start_again()


def _fails_at_once(read: Callable[[], object]) -> tuple[str, float]:
    started = time.monotonic()
    with pytest.raises(StoreUnreachable) as caught:
        read()
    return str(caught.value), time.monotonic() - started


def test_a_reader_of_a_port_nothing_listens_on_is_told_at_once_naming_host_port_and_reason() -> None:
    port = _closed_port()
    store = Store(f"postgresql://alice:hunter2@127.0.0.1:{port}/team", readonly=True)
    message, took = _fails_at_once(store.experiments)
    assert took < patience(PROMISED)
    assert f"postgresql://alice@127.0.0.1:{port}/team" in message
    assert f"connection refused at 127.0.0.1:{port}: is the server running" in message
    assert "hunter2" not in message


def test_a_server_that_never_answers_is_a_timeout_said_as_such(silent_port: int) -> None:
    store = Store(f"postgresql://alice@127.0.0.1:{silent_port}/team", readonly=True)
    message, took = _fails_at_once(store.experiments)
    assert took < patience(PROMISED)
    assert f"no answer within 4 s from 127.0.0.1:{silent_port}" in message


def test_an_unknown_host_is_said_by_its_name() -> None:
    store = Store("postgresql://alice@no-such-host.invalid:5432/team", readonly=True)
    message, _ = _fails_at_once(store.experiments)
    assert "unknown host 'no-such-host.invalid'" in message


def test_a_new_store_of_a_server_this_process_reached_waits_for_it_and_says_so(
    restartable: PostgresServer, postgres_server: TestServer, new_experiment: NewExperiment,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A restart seen by a store opened meanwhile (``hpnb.load``, a dashboard's reader) is waited for
    as the driver's own store waits; a process that never reached the server is refused at once
    (``tests/cli/test_unreachable_store.py``)."""
    caplog.set_level(logging.WARNING, logger="hpnb.store")
    url = postgres_server.create_database()
    with Store(url) as store:
        new_experiment(store)
    restartable.halt()
    names: list[str] = []

    def read() -> None:
        names.extend(e.name for e in Store(url, readonly=True).experiments())

    reader = threading.Thread(target=read)
    try:
        reader.start()
        wait_until(lambda: _said(caplog, "has not answered since"), message="the wait said")
        assert reader.is_alive()  # waiting, not failed
    finally:
        restartable.start_again()
    reader.join(60)
    assert names == ["mlp-lr"]


def test_a_store_that_lost_its_server_waits_says_so_once_and_carries_on_when_it_is_back(
    restartable: PostgresServer, postgres_server: TestServer, new_experiment: NewExperiment,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="hpnb.store")
    url = postgres_server.create_database()
    address = f"127.0.0.1:{urlsplit(url).port}"
    with Store(url) as store:
        exp = new_experiment(store)
        restartable.halt()
        added = threading.Event()

        def add() -> None:
            store.add_trial(exp.id, 0, {"lr": 0.1})
            added.set()

        writer = threading.Thread(target=add)
        try:
            writer.start()
            wait_until(lambda: _said(caplog, "has not answered since"), message="the wait said")
            assert writer.is_alive()  # waiting, not failed
        finally:
            restartable.start_again()
        writer.join(60)
        assert added.is_set() and [t.trial_id for t in store.trials(exp.id)] == [0]
    waits = _said(caplog, "has not answered since")
    assert len(waits) == 1, waits  # said when the wait started, not per attempt
    assert waits[0].startswith(f"the store at {address} has not answered since ")
    assert waits[0].endswith("), retrying")
    assert _said(caplog, f"the store at {address} answers again")


def _said(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hpnb.store" and words in r.getMessage()]


def test_hpnb_load_of_a_port_nothing_listens_on_is_told_at_once() -> None:
    import hpnb

    port = _closed_port()
    message, took = _fails_at_once(lambda: hpnb.load("mlp-lr", store=f"postgresql://alice@127.0.0.1:{port}/t"))
    assert took < patience(PROMISED)
    assert f"connection refused at 127.0.0.1:{port}" in message
