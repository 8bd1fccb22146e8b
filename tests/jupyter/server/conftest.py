"""jupyter_server's pytest fixtures (jp_fetch, jp_serverapp, ...) with the hpnb extension enabled."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_jupyter.jupyter_server import *  # noqa: F403  (fixtures and the async test hooks)

from tests.jupyter.server.sample_store import SampleStore, write_sample_store


@pytest.fixture
def sample_store(tmp_path: Path) -> SampleStore:
    return write_sample_store(tmp_path / "hpnb-home" / "hpnb.sqlite")


@pytest.fixture
def jp_server_config(sample_store: SampleStore) -> dict[str, object]:
    return {
        "ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
        "HpnbServer": {"store_path": str(sample_store.path)},
    }
