from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cloudpickle
import pytest

from hpnb.core.store import Store
from tests.runner import objectives
from tests.store_checks import no_result_stored_twice as no_result_stored_twice

# Dask workers import nothing from the test tree: ship the test objectives by value.
cloudpickle.register_pickle_by_value(objectives)

#: fixtures that start a Dask cluster: a test using one belongs to the slow tier.
CLUSTER_FIXTURES = {"dask_client", "users_client", "one_process_two_threads"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse a runner test that starts a cluster through a fixture without ``pytest.mark.slow``
    (the fast tier, ``-m "not slow"``, starts no cluster)."""
    here = Path(__file__).parent
    unmarked = [item.nodeid for item in items
                if here in Path(str(item.path)).parents and item.get_closest_marker("slow") is None
                and CLUSTER_FIXTURES & set(getattr(item, "fixturenames", ()))]
    if unmarked:
        raise pytest.UsageError(f"mark these tests pytest.mark.slow (they start a cluster): {unmarked}")


@pytest.fixture(scope="session")
def dask_client() -> Iterator[object]:
    """hpnb's own local cluster: 2 single-threaded worker processes."""
    from hpnb.cluster.connect import local_client, shutdown_local
    from hpnb.core.spec.resources import Resources

    client = local_client(Resources(workers=2))
    yield client
    shutdown_local()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def s3_url() -> Iterator[str]:
    """A real S3-compatible server (moto's, on 127.0.0.1) with an empty bucket: ``s3://hpnb-tests``.

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
