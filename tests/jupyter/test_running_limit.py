"""The header says what limits the running count ("4 running, limited by gpu"): the cell's dashboard
and the Lab's experiment route read it from the driver's latest ``slots`` event in the store, while
the search runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hpnb.core.store import Store
from hpnb.core.summary import summarize
from hpnb.jupyter.dashboard.model import DashboardModel
from hpnb.jupyter.dashboard.widgets import counts_html
from hpnb.jupyter.server.views import experiment_json


def _search(path: Path, state: str, slots: list[dict[str, Any]]) -> int:
    """A search whose live driver runs 4 trials (1 done) and wrote ``slots`` events in turn."""
    with Store(path) as store:
        exp = store.create_experiment("s", {"metric": "loss"}, metric="loss", mode="min", strategy="random",
                                      budget=40, parallel=16, overwrite=True)
        for trial_id in range(5):
            store.add_trial(exp.id, trial_id, {"x": trial_id}, state="RUNNING" if trial_id else "COMPLETED")
        for data in slots:
            store.add_event(exp.id, "slots", data)
        store.update_experiment(exp.id, state=state, heartbeat=time.time() + 3600, driver="elsewhere:1")
        return exp.id


def _shown(path: Path, experiment_id: int) -> tuple[str, Any]:
    """The cell dashboard's counts line and the experiment route's ``limited_by``."""
    model = DashboardModel(path, experiment_id, None)
    try:
        model.update()
        counts = counts_html(model.view().header)
    finally:
        model.close()
    with Store(path, readonly=True) as store:
        record = store.experiment("s")
        body = experiment_json(record, summarize(record, store.trials(record.id), time.time()),
                               store.last_event(record.id, "slots"))
    return counts, body["limited_by"]


def test_a_running_search_limited_by_its_gpus_says_so(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    experiment = _search(path, "RUNNING", [{"slots": 4, "limited_by": "gpu"}])
    counts, limited_by = _shown(path, experiment)
    assert "4 running, limited by gpu &middot;" in counts
    assert limited_by == "gpu"


def test_the_latest_slots_event_counts_and_an_ended_search_names_no_limit(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    # more workers joined: the resources no longer limit the trials at once
    experiment = _search(path, "RUNNING", [{"slots": 4, "limited_by": "gpu"},
                                           {"slots": 16, "limited_by": None}])
    counts, limited_by = _shown(path, experiment)
    assert "limited by" not in counts and "4 running" in counts
    assert limited_by is None
    experiment = _search(path, "COMPLETED", [{"slots": 4, "limited_by": "memory"}])
    counts, limited_by = _shown(path, experiment)
    assert "limited by" not in counts and limited_by is None


def test_a_resource_name_is_escaped_in_the_header(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    experiment = _search(path, "RUNNING", [{"slots": 2, "limited_by": "<b>licence</b>"}])
    counts, _ = _shown(path, experiment)
    assert "limited by &lt;b&gt;licence&lt;/b&gt;" in counts
