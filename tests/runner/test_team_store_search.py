"""A search on a real local Dask cluster whose PostgreSQL store restarts in the middle of it."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

import hpnb
from hpnb.core.store import Store
from tests.postgres import TestServer, own_postgres_server
from tests.runner import objectives
from tests.waiting import patience, wait_until


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[TestServer]:
    """A server of this module's own: its tests stop and start it, which must not cut the
    connections of the tests that other processes run meanwhile on the shared one."""
    yield from own_postgres_server()

pytestmark = pytest.mark.slow

STEPS = 40


def test_a_server_restarted_mid_search_loses_no_result(postgres_server: TestServer,
                                                       dask_client: object) -> None:
    if postgres_server.server is None:
        pytest.skip("the given server cannot be restarted here: set HPNB_TEST_POSTGRES_DIR too")
    url = postgres_server.create_database()
    spec = {"metric": "loss", "strategy": "random", "seed": 0, "trials": 4, "parallel": 2,
            "parameters": {"x": {"min": 0.0, "max": 1.0}}}
    steady = functools.partial(objectives.steady, steps=STEPS, pause=0.05)
    search = hpnb.search(steady, spec, name="through-a-restart", store=url, client=dask_client)
    with Store(url, readonly=True) as viewer:
        wait_until(lambda: viewer.result_count(search.experiment_id) >= 10, timeout=120)
        postgres_server.server.restart()  # every connection cut; back within a few seconds
        search.wait(patience(300))
        record = viewer.experiment("through-a-restart")
        trials = viewer.trials(record.id)
        results = viewer.results(record.id)
    assert record.state == "COMPLETED", record.message
    assert [t.state for t in trials] == ["COMPLETED"] * 4
    steps = {t.trial_id: [r.step for r in results if r.trial_id == t.trial_id] for t in trials}
    assert steps == {t.trial_id: list(range(STEPS)) for t in trials}  # every step stored, once
