"""One store, every front end: the handle, the CLI's JSON, the REST JSON and the dashboard name the
same state and the same best trial; a killed driver reads as INTERRUPTED everywhere."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hpnb
from hpnb.cli import main as cli_main
from hpnb.core.store import Store
from hpnb.core.summary import STALE_AFTER, summarize
from hpnb.jupyter.dashboard import data as dashboard_data
from hpnb.jupyter.server.views import experiment_json
from tests.jupyter.server.killed_driver import kill_driver, listed_state, start_driver
from tests.waiting import wait_until

TRIAL = st.tuples(
    st.sampled_from(["PENDING", "RUNNING", "COMPLETED", "STOPPED", "FAILED"]),
    st.one_of(st.none(), st.just(math.nan), st.floats(-5, 5, allow_nan=False)),
    st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)),
)
SEARCH = st.sampled_from(["RUNNING-live", "RUNNING-dead", "COMPLETED", "STOPPED", "FAILED"])


def _write(path: Path, search_state: str, mode: str,
           trials: list[tuple[str, float | None, float | None]]) -> None:
    now = time.time()
    with Store(path) as store:
        exp = store.create_experiment("s", {"metric": "loss"}, metric="loss", mode=mode, strategy="random",
                                      budget=len(trials) + 1, parallel=None, overwrite=True)
        for trial_id, (state, value, best) in enumerate(trials):
            store.add_trial(exp.id, trial_id, {"x": trial_id}, state=state)
            store.update_trial(exp.id, trial_id, value=value, best=best)
        state, _, liveness = search_state.partition("-")
        beat = now + 3600 if liveness == "live" else now - 10 * STALE_AFTER
        store.update_experiment(exp.id, state=state, heartbeat=beat, driver="elsewhere:1")


def _cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    capsys.readouterr()
    assert cli_main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(search_state=SEARCH, mode=st.sampled_from(["min", "max"]), trials=st.lists(TRIAL, max_size=8))
def test_every_front_end_names_the_same_state_and_best_trial(tmp_path, capsys, search_state, mode, trials):
    path = tmp_path / "hpnb.sqlite"
    _write(path, search_state, mode, trials)
    handle = hpnb.load("s", store=path)
    best = handle.best
    expected = (handle.state, None if best is None else best["trial_id"])

    shown = _cli_json(capsys, "show", "s", "--json", "--store", str(path))
    listed = _cli_json(capsys, "list", "--json", "--store", str(path))
    with Store(path, readonly=True) as store:
        record = store.experiment("s")
        stored_trials = store.trials(record.id)
    rest = experiment_json(record, summarize(record, stored_trials, time.time()))
    header = dashboard_data.header(record, stored_trials, time.time())

    def named(body: dict) -> tuple[str, int | None]:
        return body["state"], None if body["best"] is None else body["best"]["trial_id"]

    assert named(shown) == named(listed[0]) == named(rest) == expected  # type: ignore[index, arg-type]
    assert (header.summary.state, header.summary.best_trial) == expected
    # a failed trial or a trial without a finite value is never the best
    if best is not None:
        chosen = next(t for t in stored_trials if t.trial_id == best["trial_id"])
        assert chosen.state != "FAILED" and chosen.value is not None and math.isfinite(chosen.value)
    # a dead driver's search is INTERRUPTED, and none of its trials is shown running
    if search_state == "RUNNING-dead":
        assert handle.state == "INTERRUPTED" and rest["running"] == 0 and rest["active"] is False


# How soon after the kill (three heartbeat intervals) is measured by benchmarks/interrupted_search.py.
@pytest.mark.slow
def test_a_killed_driver_reads_interrupted_from_another_process(tmp_path):
    path, driver = start_driver(tmp_path)
    kill_driver(driver)
    wait_until(lambda: listed_state(path) == "INTERRUPTED", 20 * STALE_AFTER,
               "`hpnb list` reading the killed driver's search as INTERRUPTED", interval=0.2)
    assert hpnb.load("killed", store=path).state == "INTERRUPTED"
    with Store(path, readonly=True) as store:
        record = store.experiment("killed")
        body = experiment_json(record, summarize(record, store.trials(record.id), time.time()))
    assert body["state"] == "INTERRUPTED" and body["resumable"] and body["running"] == 0
