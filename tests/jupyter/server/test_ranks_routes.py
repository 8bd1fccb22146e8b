"""A trial's ranks in what the Lab reads of it, against a real jupyter_server and store file: its log
route and its leaderboard row carry the ranks of its latest attempt (each rank's worker, host and
state, and the summary line); a trial of one worker has none."""

from __future__ import annotations

import pytest

from hpnb.core.store import Store
from tests.jupyter.server.sample_store import SampleStore
from tests.jupyter.server.test_routes import get_json

pytestmark = pytest.mark.slow

A, B = "tcp://127.0.0.1:40123", "tcp://127.0.0.1:40411"


def _ranks(sample: SampleStore, name: str, trial: int, attempt: int, *states: str) -> None:
    ranks = [{"rank": i, "worker": (A, B)[i % 2], "state": s} for i, s in enumerate(states)]
    with Store(sample.path) as store:
        data = {"trial": trial, "attempt": attempt, "ranks": ranks}
        store.add_event(store.experiment(name).id, "ranks", data)


async def test_a_gang_trials_log_has_its_latest_attempts_ranks(jp_fetch, sample_store):
    _ranks(sample_store, sample_store.running, 2, 0, "running", "lost")
    _ranks(sample_store, sample_store.running, 2, 1, "running", "starting")
    body = await get_json(jp_fetch, sample_store.running, "trials", "2", "logs")
    assert body["ranks"]["attempt"] == 1
    assert body["ranks"]["summary"] == ("2 ranks (attempt 2): 0 running on 127.0.0.1:40123, "
                                        "1 starting on 127.0.0.1:40411")
    assert [(r["rank"], r["host"], r["state"]) for r in body["ranks"]["ranks"]] == [
        (0, "127.0.0.1:40123", "running"), (1, "127.0.0.1:40411", "starting")]
    alone = await get_json(jp_fetch, sample_store.running, "trials", "3", "logs")
    assert alone["ranks"] is None


async def test_leaderboard_rows_carry_the_ranks_of_gang_trials_as_they_change(jp_fetch, sample_store):
    _ranks(sample_store, sample_store.running, 3, 0, "running", "running")
    first = await get_json(jp_fetch, sample_store.running, "leaderboard")
    by_trial = {row["trial_id"]: row for row in first["rows"]}
    assert [r["state"] for r in by_trial[3]["ranks"]["ranks"]] == ["running", "running"]
    assert all("ranks" not in row for trial, row in by_trial.items() if trial != 3)

    _ranks(sample_store, sample_store.running, 3, 0, "running", "failed")  # the view's next poll sees it
    again = await get_json(jp_fetch, sample_store.running, "leaderboard")
    row = next(row for row in again["rows"] if row["trial_id"] == 3)
    assert [r["state"] for r in row["ranks"]["ranks"]] == ["running", "failed"]


async def test_a_finished_searchs_rows_keep_their_ranks(jp_fetch, sample_store):
    _ranks(sample_store, sample_store.finished, 6, 0, "failed", "stopped")
    for _ in range(2):  # the second answer is the one kept with the search's trials
        rows = (await get_json(jp_fetch, sample_store.finished, "leaderboard"))["rows"]
        failed = next(row for row in rows if row["trial_id"] == 6)
        assert failed["ranks"]["summary"] == (
            "2 ranks: 0 failed on 127.0.0.1:40123, 1 stopped on 127.0.0.1:40411")
