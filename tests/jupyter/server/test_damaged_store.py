"""The /hpnb/api routes on a damaged store file: 503 with the store's one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from tests.core.store.test_damaged_store import NAMES
from tests.core.store.test_damaged_store import damaged as damaged
from tests.core.store.test_damaged_store import good_store as good_store

pytestmark = pytest.mark.slow

API = ("hpnb", "api", "experiments")
ROUTES = [("GET", ()), ("GET", (NAMES[0],)), ("GET", (NAMES[0], "trials")),
          ("GET", (NAMES[0], "results")), ("POST", (NAMES[0], "stop"))]  # fmt: skip


@pytest.fixture
def jp_server_config(damaged: Path) -> dict[str, object]:
    return {
        "ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
        "HpnbServer": {"store_path": str(damaged)},
    }


async def test_every_route_answers_503_naming_the_damaged_file(jp_fetch, damaged: Path) -> None:
    for method, parts in ROUTES:
        with pytest.raises(HTTPClientError) as raised:
            await jp_fetch(*API, *parts, method=method, **({"body": b"{}"} if method == "POST" else {}))
        response = raised.value.response
        assert response is not None and raised.value.code == 503, (method, parts)
        assert response.headers["Content-Type"].startswith("application/json")
        message = json.loads(response.body)["message"]
        assert message.startswith(f"the store {damaged} is damaged ("), (method, parts, message)
        assert f"mv {damaged} {damaged}.bak" in message
