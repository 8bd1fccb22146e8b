"""The final view a saved notebook keeps (real search on a local Dask cluster, real store file).

The refresh thread may read the store just before the driver's last write and see the search
end just after: the summary it leaves in the notebook must still count every trial done.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

import hpnb
from hpnb.jupyter.dashboard.dashboard import Dashboard
from tests.runner import resumable
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

cloudpickle.register_pickle_by_value(resumable)


class RecordedDisplay:
    """Stands for IPython's display handle: keeps the text of each update."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def update(self, obj: Any) -> None:
        self.texts.append(obj._repr_mimebundle_()["text/plain"])


def test_a_store_read_just_before_the_end_never_becomes_the_final_summary(local_clusters, tmp_path: Path):
    objective = partial(resumable.counted_steps, steps=15, pause=0.1)
    search = hpnb.search(objective, store=tmp_path / "hpnb.sqlite", name="ending", metric="loss",
                         strategy="random", trials=2, parallel=1, seed=0,
                         parameters={"x": {"min": 1.0, "max": 2.0}}, resources={"workers": 1})
    dashboard = Dashboard(search)
    dashboard.display_handle = display = RecordedDisplay()
    read = dashboard.model.update
    stalled = threading.Event()

    def read_then_let_the_search_end(results: bool = True) -> set[int]:
        changed = read(results)
        running = any(t.state == "RUNNING" for t in dashboard.model.trials)
        if running and not stalled.is_set():  # this read saw a trial running: the end comes after it
            stalled.set()
            search.wait(patience(120))
        return changed

    dashboard.model.update = read_then_let_the_search_end  # type: ignore[method-assign]
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    wait_until(lambda: display.texts, 30, "the dashboard's final view")
    assert stalled.is_set()
    assert display.texts[-1].splitlines()[:2] == [
        "hpnb search 'ending' (random, minimise loss): COMPLETED",
        "2/2 trials done: 2 completed, 0 failed, 0 stopped, 0 running",
    ]
    dashboard.close()
