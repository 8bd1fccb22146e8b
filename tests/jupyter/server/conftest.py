"""jupyter_server's pytest fixtures (jp_fetch, jp_serverapp, ...) with the hpnb extension enabled."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_jupyter.jupyter_server import *  # noqa: F403  (fixtures and the async test hooks)

from tests.jupyter.server.sample_store import SampleStore, start_search, write_sample_store
from tests.local_cluster import shared_local_client
from tests.waiting import patience


@pytest.fixture
def sample_store(tmp_path: Path) -> SampleStore:
    return write_sample_store(tmp_path / "hpnb-home" / "hpnb.sqlite")


@pytest.fixture
def jp_server_config(sample_store: SampleStore) -> dict[str, object]:
    return {
        "ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
        "HpnbServer": {"store_path": str(sample_store.path)},
    }


@pytest.fixture(scope="session")
def finished_search(tmp_path_factory: pytest.TempPathFactory, local_clusters: None):
    """A real search of 4 trials, run to completion into its own store file."""
    path = tmp_path_factory.mktemp("real-search") / "hpnb.sqlite"
    search = start_search(path, shared_local_client(), "real-search", trials=4, steps=5, pause=0.0)
    search.wait(patience(120))
    assert search.state == "COMPLETED", search.message
    return search
