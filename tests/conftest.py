"""The suite's tiers. A test is ``slow`` when it starts a Dask cluster, an IPython kernel, a Jupyter
server, a browser, a notebook run or a subprocess running a search; ``pytest -m "not slow"`` runs the
rest (the logic, the spec, the store, the strategies, the scripted runner) in a few minutes, and
plain ``pytest`` (CI) runs everything.

Modules mark themselves (``pytestmark = pytest.mark.slow``); a test that uses one of the shared
fixtures below is marked here, so that none slips into the fast tier unmarked.
"""

from __future__ import annotations

import pytest

#: the shared fixtures that start something: using one makes a test slow.
STARTING_FIXTURES = frozenset({
    "jp_fetch", "jp_serverapp",  # a Jupyter server (pytest-jupyter)
    "lab_server", "lab_page", "browser",  # JupyterLab in a subprocess, Chromium
    "dask_client", "finished_search",  # a Dask LocalCluster (and a search on it)
})  # fmt: skip


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if STARTING_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
