"""The ranks of a trial that spans several workers, in the dashboard of a search read from a real
store file: its row says how many ranks it has, its log panel says each rank's worker and state,
and a rank that changes state is redrawn; a trial of one worker shows none of it."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import hpnb
from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.jupyter.dashboard.dashboard import Dashboard

SPEC = "metric: loss\ntrials: 4\nparameters:\n  x: {min: 0.0, max: 1.0}\n"
A, B = "tcp://127.0.0.1:40123", "tcp://127.0.0.1:40411"
_RANK_ROW = re.compile(r"<tr data-rank='(\d+)'><td[^>]*>\d+</td><td[^>]*><code>([^<]*)</code></td>"
                       r"<td[^>]*>([^<]*)</td></tr>")


def ranks_data(trial: int, attempt: int, *states: str) -> dict[str, object]:
    return {"trial": trial, "attempt": attempt,
            "ranks": [{"rank": i, "worker": (A, B)[i % 2], "state": s} for i, s in enumerate(states)]}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A running search (its driver beats for an hour): trial 0 of one worker has finished, trial 1
    runs on two ranks, trial 2 was retried after its rank 1's worker was lost."""
    path = tmp_path / "hpnb.sqlite"
    with Store(path) as store:
        exp = store.create_experiment("gangs", parse_spec(SPEC).to_dict(), metric="loss", mode="min",
                                      strategy="random", budget=4, parallel=2)
        store.update_experiment(exp.id, state="RUNNING", heartbeat=time.time() + 3600)
        for trial, state in enumerate(("COMPLETED", "RUNNING", "RUNNING")):
            store.add_trial(exp.id, trial, {"x": trial / 4})
            store.update_trial(exp.id, trial, state=state, start=time.time() - 10, worker=A,
                               value=0.5 if state == "COMPLETED" else None)
        store.add_event(exp.id, "ranks", ranks_data(1, 0, "starting", "starting"))
        store.add_event(exp.id, "ranks", ranks_data(2, 0, "running", "lost"))
        store.add_event(exp.id, "ranks", ranks_data(1, 0, "running", "running"))
        store.add_event(exp.id, "ranks", ranks_data(2, 1, "running", "starting"))
        store.add_event(exp.id, "stop_trial", {"value": 0})
    return path


@pytest.fixture
def dashboard(path: Path) -> Iterator[Dashboard]:
    shown = Dashboard(hpnb.load("gangs", store=path))
    yield shown
    shown.close()


def state_cells(dashboard: Dashboard) -> dict[int, str]:
    table = dashboard.widgets.table
    at = [key for key, _ in table.columns].index("state")
    return {trial: row[at] for trial, row in zip(table.trial_ids, table.rows, strict=True)}


def shown_ranks(dashboard: Dashboard) -> list[tuple[int, str, str]]:
    return [(int(r), host, state) for r, host, state in _RANK_ROW.findall(dashboard.widgets.log.value)]


def test_a_gang_trials_row_says_how_many_ranks_it_has(dashboard: Dashboard) -> None:
    gang = "RUNNING \u00b7 2 ranks"
    assert state_cells(dashboard) == {0: "COMPLETED", 1: gang, 2: gang}


def test_the_selected_trials_log_shows_each_ranks_worker_and_state(dashboard: Dashboard) -> None:
    dashboard.widgets.table.selected = 1
    assert shown_ranks(dashboard) == [(0, "127.0.0.1:40123", "running"), (1, "127.0.0.1:40411", "running")]
    assert "<b>2 ranks</b>" in dashboard.widgets.log.value

    dashboard.widgets.table.selected = 2  # retried: its second attempt's ranks, not the lost one's
    assert shown_ranks(dashboard) == [(0, "127.0.0.1:40123", "running"), (1, "127.0.0.1:40411", "starting")]
    assert "attempt 2" in dashboard.widgets.log.value


def test_a_rank_that_changes_state_is_redrawn_in_the_open_log(path: Path, dashboard: Dashboard) -> None:
    dashboard.widgets.table.selected = 1
    with Store(path) as store:
        store.add_event(store.experiment("gangs").id, "ranks", ranks_data(1, 0, "running", "failed"))
    dashboard.refresh(plots=False)
    assert shown_ranks(dashboard) == [(0, "127.0.0.1:40123", "running"), (1, "127.0.0.1:40411", "failed")]


def test_a_trial_of_one_worker_and_the_recent_actions_line_show_no_ranks(dashboard: Dashboard) -> None:
    dashboard.widgets.table.selected = 0
    assert "trial 0" in dashboard.widgets.log.value and shown_ranks(dashboard) == []
    assert "hpnb-trial-ranks" not in dashboard.widgets.log.value
    actions = dashboard.widgets.events.value
    assert "you stopped trial 0" in actions and "ranks" not in actions
