"""The /hpnb/api routes on a server store that cannot be reached: 503 with the reason, not a hang;
on a real server stopped under a running Lab, and started again, the routes answer again."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.core.store import Store
from tests.postgres import TestServer, own_postgres_server
from tests.waiting import patience


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[TestServer]:
    """A server of this module's own: its tests stop and start it, which must not cut the
    connections of the tests that other processes run meanwhile on the shared one."""
    yield from own_postgres_server()

pytestmark = pytest.mark.slow

API = ("hpnb", "api", "experiments")
ROUTES = [("GET", ()), ("GET", ("mlp-lr",)), ("GET", ("mlp-lr", "trials")),
          ("GET", ("mlp-lr", "results")), ("POST", ("mlp-lr", "stop"))]  # fmt: skip
#: what the product promises: an answer within this many seconds (the Lab waits 5 s at most for a
#: server that went away).
PROMISED = 10.0


@pytest.fixture
def lab_store(request: pytest.FixtureRequest) -> str:
    """The Lab's store: a port nothing listens on, or ("server") a database on the tests' server."""
    if getattr(request, "param", None) != "server":
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return f"postgresql://alice:hunter2@127.0.0.1:{probe.getsockname()[1]}/team"
    server: TestServer = request.getfixturevalue("postgres_server")
    if server.server is None:
        pytest.skip("the given server cannot be stopped here: set HPNB_TEST_POSTGRES_DIR too")
    url = server.create_database()
    with Store(url) as store:
        store.create_experiment("mlp-lr", {}, metric="m", mode="min", strategy="random", budget=2, parallel=1)
    return url


@pytest.fixture
def jp_server_config(lab_store: str) -> dict[str, object]:
    return {
        "ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
        "HpnbServer": {"store_path": lab_store},
    }


async def _refused(jp_fetch, method: str, parts: tuple[str, ...]) -> str:
    started = time.monotonic()
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, *parts, method=method, **({"body": b"{}"} if method == "POST" else {}))
    assert time.monotonic() - started < patience(PROMISED), (method, parts)
    response = raised.value.response
    assert response is not None and raised.value.code == 503, (method, parts)
    assert response.headers["Content-Type"].startswith("application/json")
    return str(json.loads(response.body)["message"])


async def test_every_route_answers_503_naming_host_port_and_reason(jp_fetch, lab_store: str) -> None:
    port = lab_store.split(":")[-1].split("/")[0]
    for method, parts in ROUTES:
        message = await _refused(jp_fetch, method, parts)
        assert message.startswith("cannot connect to the store postgresql://alice@127.0.0.1:"), message
        assert f"connection refused at 127.0.0.1:{port}: is the server running" in message
        assert "hunter2" not in message


@pytest.mark.parametrize("lab_store", ["server"], indirect=True)
async def test_a_server_stopped_under_the_lab_is_a_503_then_answers_again(
    jp_fetch, postgres_server: TestServer
) -> None:
    assert postgres_server.server is not None
    listed = await jp_fetch(*API)
    assert [e["name"] for e in json.loads(listed.body)["experiments"]] == ["mlp-lr"]
    postgres_server.server.halt()
    try:
        message = await _refused(jp_fetch, "GET", ())
    finally:
        postgres_server.server.start_again()
    assert f"connection refused at 127.0.0.1:{postgres_server.server.port}" in message
    again = await jp_fetch(*API, "mlp-lr")
    assert json.loads(again.body)["name"] == "mlp-lr"
