"""A trial's ranks as the views show them, read from the driver's ``ranks`` events: the newest
event of the highest attempt wins, events of other shapes are passed over, and the summary says
each rank's state and worker (a large gang: counts, and the ranks in trouble)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hpnb.core.rank_states import RankState, TrialRanks, latest_ranks, search_ranks
from hpnb.core.store import Store

A, B = "tcp://127.0.0.1:40123", "tcp://127.0.0.1:40411"


def ranks_event(trial: int, attempt: int, *states: str, workers: tuple[str, ...] = (A, B)) -> dict[str, Any]:
    ranks = [{"rank": i, "worker": workers[i % len(workers)], "state": s} for i, s in enumerate(states)]
    return {"kind": "ranks", "data": {"trial": trial, "attempt": attempt, "ranks": ranks}}


def test_the_newest_event_of_a_trial_is_its_view_and_other_trials_keep_theirs() -> None:
    events = [ranks_event(3, 0, "starting", "starting"), {"kind": "slots", "data": {"slots": 2}},
              ranks_event(4, 0, "running", "running"), ranks_event(3, 0, "running", "failed")]
    latest = latest_ranks(events)
    assert sorted(latest) == [3, 4]
    assert latest[3] == TrialRanks(3, 0, (RankState(0, A, "running"), RankState(1, B, "failed")))
    assert latest[3].summary() == "2 ranks: 0 running on 127.0.0.1:40123, 1 failed on 127.0.0.1:40411"
    assert latest[4].states() == {"running": 2}


def test_a_retried_trial_shows_its_later_attempt_even_when_the_earlier_ones_last_event_comes_after() -> None:
    events = [ranks_event(1, 0, "running", "lost"), ranks_event(1, 1, "starting", "starting"),
              ranks_event(1, 0, "stopped", "lost")]  # attempt 0's rank 0 told its end late
    shown = latest_ranks(events)[1]
    assert (shown.attempt, [r.state for r in shown.ranks]) == (1, ["starting", "starting"])
    assert shown.summary().startswith("2 ranks (attempt 2): 0 starting on")


def test_events_of_another_shape_are_passed_over_without_error() -> None:
    bad: list[Any] = [
        {"kind": "ranks", "data": None},
        {"kind": "ranks", "data": {"trial": "3", "attempt": 0, "ranks": []}},
        {"kind": "ranks", "data": {"trial": True, "attempt": 0, "ranks": []}},
        {"kind": "ranks", "data": {"trial": 3, "attempt": -1, "ranks": []}},
        {"kind": "ranks", "data": {"trial": 3, "attempt": 0, "ranks": "two"}},
        {"kind": "ranks", "data": {"trial": 3, "attempt": 0, "ranks": [{"rank": 0, "worker": A}]}},
        {"kind": "ranks", "data": {"trial": 3, "attempt": 0, "ranks": [7]}},
        {"kind": "ranks"},
    ]
    assert latest_ranks(bad) == {}
    assert latest_ranks([*bad, ranks_event(3, 0, "running")])[3].count == 1


def test_ranks_are_shown_in_rank_order_whatever_order_they_were_written_in() -> None:
    event = {"kind": "ranks", "data": {"trial": 0, "attempt": 0, "ranks": [
        {"rank": 1, "worker": B, "state": "completed"}, {"rank": 0, "worker": A, "state": "running"}]}}
    assert [r.rank for r in latest_ranks([event])[0].ranks] == [0, 1]


def test_a_large_gang_is_summed_up_by_state_naming_the_ranks_that_failed_or_were_lost() -> None:
    states = ["running"] * 5 + ["failed", "running", "lost"]
    shown = latest_ranks([ranks_event(2, 0, *states)])[2]
    assert shown.label() == "8 ranks"
    assert shown.summary() == ("8 ranks: 6 running, 1 failed, 1 lost "
                               "(5 failed on 127.0.0.1:40411, 7 lost on 127.0.0.1:40411)")


def test_a_state_this_version_does_not_know_is_shown_as_written() -> None:
    shown = latest_ranks([ranks_event(0, 0, *["running"] * 4, "draining")])[0]
    assert shown.states() == {"running": 4, "draining": 1}


def test_the_json_the_lab_reads_has_each_ranks_host_and_the_summary() -> None:
    body = latest_ranks([ranks_event(5, 0, "completed", "completed")])[5].to_json()
    assert body["summary"] == "2 ranks: 0 completed on 127.0.0.1:40123, 1 completed on 127.0.0.1:40411"
    assert body["ranks"][1] == {"rank": 1, "worker": B, "host": "127.0.0.1:40411", "state": "completed"}


def test_a_searchs_ranks_are_read_from_its_own_events_in_the_store(tmp_path: Path) -> None:
    with Store(tmp_path / "hpnb.sqlite") as store:
        ids = [store.create_experiment(name, {}, metric="loss", mode="min", strategy="random", budget=2,
                                       parallel=1).id for name in ("gang", "other")]
        for exp in ids:
            store.add_trial(exp, 0, {"lr": 0.1})
        store.add_event(ids[0], "ranks", ranks_event(0, 0, "running", "running")["data"])
        store.add_event(ids[0], "slots", {"slots": 1})
        store.add_event(ids[1], "ranks", ranks_event(0, 0, "failed")["data"])
        assert search_ranks(store, ids[0])[0].states() == {"running": 2}
        assert search_ranks(store, ids[1])[0].states() == {"failed": 1}
