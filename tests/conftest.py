"""The suite's tiers. A test is ``slow`` when it starts a Dask cluster, an IPython kernel, a Jupyter
server, a browser, a notebook run or a subprocess running a search; ``pytest -m "not slow"`` runs the
rest (the logic, the spec, the store, the strategies, the scripted runner) in a few minutes, and
plain ``pytest`` (CI) runs everything.

Modules mark themselves (``pytestmark = pytest.mark.slow``); a test that uses one of the shared
fixtures below is marked here, so that none slips into the fast tier unmarked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.local_cluster import shared_local_client
from tests.log_checks import records  # noqa: F401  (a fixture every test may use)
from tests.postgres import TestServer, postgres_server_fixture
from tests.waiting import patience

#: the shared fixtures that start something: using one makes a test slow.
STARTING_FIXTURES = frozenset({
    "jp_fetch", "jp_serverapp",  # a Jupyter server (pytest-jupyter)
    "lab_server", "lab_page", "browser",  # JupyterLab in a subprocess, Chromium
    "dask_client", "finished_search",  # a Dask LocalCluster (and a search on it)
})  # fmt: skip


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[TestServer]:
    """A PostgreSQL server to make test databases on (see :mod:`tests.postgres`)."""
    yield from postgres_server_fixture()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """A test's time limit (pytest-timeout's, from pyproject.toml) is raised by the tests' patience
    (``HPNB_TEST_PATIENCE``, :mod:`tests.waiting`) like every deadline the tests give."""
    ini = config.getini("timeout")
    if config.getoption("timeout", None) is None and not os.environ.get("PYTEST_TIMEOUT") and ini:
        config.option.timeout = patience(float(ini))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if STARTING_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def local_clusters() -> Iterator[None]:
    """Shuts hpnb's process-wide local clusters down at the end of the session."""
    yield
    from hpnb.cluster.connect import shutdown_local

    shutdown_local()


@pytest.fixture
def dask_client(local_clusters: None) -> object:
    """A running client of hpnb's local cluster of 2 single-threaded worker processes."""
    return shared_local_client()


@pytest.fixture(scope="session")
def s3_url() -> Iterator[str]:
    """A real S3-compatible server (moto's, on 127.0.0.1) with an empty bucket: ``s3://hpnb-tests``,
    one for the whole session (the checkpoint-store, cluster and export tests share it).

    This process and every process started after (Dask workers) reach it through the AWS_*
    environment variables set here."""
    import os

    server_module = pytest.importorskip("moto.server", reason="the S3 tests need moto[server] (test extra)")
    s3fs = pytest.importorskip("s3fs", reason="the S3 tests need s3fs (test extra)")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    saved = {k: os.environ.get(k) for k in _S3_ENV}
    os.environ.update({"AWS_ACCESS_KEY_ID": "hpnb", "AWS_SECRET_ACCESS_KEY": "hpnb",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{host}:{port}"})
    s3fs.S3FileSystem.clear_instance_cache()
    s3fs.S3FileSystem().mkdir("hpnb-tests")
    yield "s3://hpnb-tests"
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    server.stop()


_S3_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL")
