"""A PostgreSQL store as a team uses it: bad addresses, roles, passwords, a restarted server, two drivers."""

from __future__ import annotations

import multiprocessing
import socket
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from hpnb.core.errors import HpnbError
from hpnb.core.store import ExperimentRecord, ReadOnlyStore, ResultRow, Store, StoreError, StoreUnreachable
from hpnb.core.store.search_lock import ServerSearchLock
from tests.postgres import TestServer, own_postgres_server
from tests.waiting import patience


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[TestServer]:
    """A server of this module's own: its tests stop and start it, which must not cut the
    connections of the tests that other processes run meanwhile on the shared one."""
    yield from own_postgres_server()

NewExperiment = Callable[..., ExperimentRecord]


def _as(url: str, user: str, password: str | None = None) -> str:
    parts = urlsplit(url)
    login = user if password is None else f"{user}:{password}"
    return urlunsplit(parts._replace(netloc=f"{login}@{parts.hostname}:{parts.port}"))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_server_is_one_clear_error_naming_the_host() -> None:
    url = f"postgresql://alice:hunter2@127.0.0.1:{_closed_port()}/team"
    started = time.monotonic()
    with pytest.raises(StoreUnreachable) as caught:
        Store(url)
    message = str(caught.value)
    assert f"postgresql://alice@127.0.0.1:{urlsplit(url).port}/team" in message
    assert "refused" in message.lower()
    assert "hunter2" not in message and "hunter2" not in repr(caught.value.__cause__)
    assert time.monotonic() - started < 10


def test_a_wrong_password_names_the_host_and_what_failed_never_the_password(
    postgres_server: TestServer,
) -> None:
    url = postgres_server.create_database()
    postgres_server.sql("CREATE ROLE carol LOGIN PASSWORD 'right-one' IN ROLE password_users")
    try:
        with pytest.raises(StoreError) as caught:
            Store(_as(url, "carol", "wrong-one"))
        message = str(caught.value)
        assert "password authentication failed" in message and "carol@127.0.0.1" in message
        assert "wrong-one" not in message and "right-one" not in message
        with Store(_as(url, "carol", "right-one"), readonly=True) as store:  # the right one is let in
            assert store.experiments() == []
            assert "right-one" not in repr(store) and "right-one" not in str(store.location)
    finally:
        postgres_server.sql("DROP OWNED BY carol CASCADE", url)
        postgres_server.sql("DROP ROLE carol")


def test_a_role_that_may_not_create_the_tables_is_told_so_before_anything_starts(
    postgres_server: TestServer,
) -> None:
    url = postgres_server.create_database()
    postgres_server.sql("CREATE ROLE dave LOGIN")
    try:
        with pytest.raises(StoreError, match=r"cannot create or upgrade the store's tables in "
                                             r"postgresql://dave@127\.0\.0\.1:\d+/\w+: permission denied"):
            Store(_as(url, "dave"))
    finally:
        postgres_server.sql("DROP ROLE dave")


def test_a_read_only_role_sees_everything_and_is_refused_any_command(
    postgres_server: TestServer, new_experiment: NewExperiment
) -> None:
    url = postgres_server.create_database()
    with Store(url) as owner_store:
        exp = new_experiment(owner_store, owner="erin@lab")
    postgres_server.sql("CREATE ROLE viewer LOGIN")
    postgres_server.sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO viewer", url)
    try:
        with Store(_as(url, "viewer"), readonly=True) as viewer:
            assert [(e.name, e.owner) for e in viewer.experiments()] == [("mlp-lr", "erin@lab")]
            with pytest.raises(ReadOnlyStore, match=r"cannot send a command: the store postgresql://viewer@"
                                                    r".* may not be written by this role"):
                viewer.send_command(exp.id, "stop", source="lab")
        with Store(url) as owner_store:
            assert owner_store.pending_commands(exp.id) == []
            assert not owner_store.experiment("mlp-lr").stop_requested
    finally:
        postgres_server.sql("DROP OWNED BY viewer CASCADE", url)
        postgres_server.sql("DROP ROLE viewer")


def test_the_owner_is_who_started_the_search(store: Store, new_experiment: NewExperiment) -> None:
    import getpass

    mine = new_experiment(store)
    theirs = new_experiment(store, "theirs", owner="bob@gpu-7")
    assert mine.owner == f"{getpass.getuser()}@{socket.gethostname()}"
    assert store.experiment("theirs").owner == theirs.owner == "bob@gpu-7"


def test_writes_wait_for_a_restarted_server_and_nothing_is_lost(
    postgres_server: TestServer, new_experiment: NewExperiment
) -> None:
    if postgres_server.server is None:
        pytest.skip("the given server cannot be restarted here: set HPNB_TEST_POSTGRES_DIR too")
    url = postgres_server.create_database()
    with Store(url) as store:
        exp = new_experiment(store)
        store.add_trial(exp.id, 0, {"lr": 0.1})
        done = threading.Event()

        def write() -> None:
            for seq in range(1, 401):
                store.add_results(exp.id, [ResultRow(0, seq, seq, time.time(), 1.0 / seq, {})])
                time.sleep(0.005)
            done.set()

        writer = threading.Thread(target=write)
        writer.start()
        time.sleep(0.3)
        postgres_server.server.restart()  # every connection is cut; the server is back in about a second
        writer.join(60)
        assert done.is_set()
        assert [row.seq for row in store.results(exp.id)] == list(range(1, 401))


def _take_and_hold(url: str, experiment_id: int, held: multiprocessing.Event,  # type: ignore[valid-type]
                   release: multiprocessing.Event) -> None:  # type: ignore[valid-type]
    with Store(url) as store:
        lock = ServerSearchLock.take(store, experiment_id)
        held.set()  # type: ignore[attr-defined]
        release.wait(patience(60))  # type: ignore[attr-defined]
        lock.release()


def test_two_drivers_never_hold_one_search_across_processes(
    postgres_server: TestServer, new_experiment: NewExperiment
) -> None:
    url = postgres_server.create_database()
    with Store(url) as store:
        exp = new_experiment(store)
        store.update_experiment(exp.id, driver="gpu-7:4242")
        context = multiprocessing.get_context("spawn")
        held, release = context.Event(), context.Event()
        other = context.Process(target=_take_and_hold, args=(url, exp.id, held, release))
        other.start()
        try:
            assert held.wait(patience(60))
            with pytest.raises(HpnbError, match="already driven by gpu-7:4242"):
                ServerSearchLock.take(store, exp.id, "mlp-lr")
        finally:
            release.set()
            other.join(30)
        lock = ServerSearchLock.take(store, exp.id)  # free once the other driver let go
        assert lock.held
        lock.release()


def test_a_connection_cut_during_a_batch_writes_none_of_it_and_says_so(
    postgres_server: TestServer, new_experiment: NewExperiment
) -> None:
    url = postgres_server.create_database()
    with Store(url) as store:
        exp = new_experiment(store)
        store.add_trial(exp.id, 0, {"lr": 0.1})
        with pytest.raises(StoreUnreachable, match=r"lost during a batch.*nothing of it was written"):
            with store.batch():
                store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {})])
                postgres_server.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    f"WHERE datname = '{urlsplit(url).path[1:]}' AND pid <> pg_backend_pid()")
                store.add_results(exp.id, [ResultRow(0, 2, 1, 2.0, 0.4, {})])
        assert store.results(exp.id) == []  # reconnected: none of the batch, and the store works on
        with store.batch():
            store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {}), ResultRow(0, 2, 1, 2.0, 0.4, {})])
        assert [r.seq for r in store.results(exp.id)] == [1, 2]
