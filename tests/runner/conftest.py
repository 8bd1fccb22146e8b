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


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()
