"""Placing gangs: all of a trial's ranks or none, no deadlock, small trials fill the gaps without
starving a large one."""

from __future__ import annotations

from hpnb.runner.ranks.placement import PATIENCE, GangQueue
from hpnb.testing.gang_packing import makespan


def test_a_trial_starts_with_all_its_ranks_on_distinct_workers_or_waits_whole() -> None:
    queue: GangQueue[str] = GangQueue()
    queue.add("two", 2)
    assert queue.place({"w1": 1, "w2": 0}) == []  # one free worker: nothing held for it meanwhile
    assert len(queue) == 1
    [(key, workers)] = queue.place({"w1": 1, "w2": 1})
    assert key == "two" and sorted(workers) == ["w1", "w2"]
    assert len(queue) == 0


def test_two_trials_that_each_want_two_of_three_free_workers_never_deadlock() -> None:
    queue: GangQueue[str] = GangQueue()
    queue.add("a", 2)
    queue.add("b", 2)
    placed = queue.place({"w1": 1, "w2": 1, "w3": 1})
    assert [key for key, _ in placed] == ["a"]  # one takes two workers whole, the other waits whole
    assert [key for key, _ in queue.place({"w3": 1, "w1": 1, "w2": 0})] == ["b"]  # once a's end frees one


def test_small_trials_fill_the_gaps_until_a_waiting_large_one_holds_the_queue() -> None:
    queue: GangQueue[str] = GangQueue()
    queue.add("large", 3)
    for n in range(PATIENCE + 2):
        queue.add(f"small-{n}", 1)
    started = []
    for _ in range(PATIENCE + 2):  # one worker frees at a time: the large trial never fits
        started += [key for key, _ in queue.place({"w1": 1, "w2": 0, "w3": 0})]
    assert started == [f"small-{n}" for n in range(PATIENCE)]  # then the large one holds the queue
    assert [key for key, _ in queue.place({"w1": 1, "w2": 1, "w3": 1})] == ["large"]


def test_a_cancelled_trial_leaves_the_queue() -> None:
    queue: GangQueue[str] = GangQueue()
    queue.add("a", 2)
    assert queue.remove("a") and not queue.remove("a")
    assert queue.place({"w1": 1, "w2": 1}) == []


def test_twelve_trials_of_two_ranks_and_twelve_of_one_pack_four_workers_within_15_percent_of_ideal() -> None:
    sizes = [2, 1] * 12  # as a search with a parameter setting the workers samples them
    ideal = sum(sizes) / 4  # rank-seconds over worker slots
    assert makespan(sizes, workers=4) <= 1.15 * ideal
    assert makespan(sorted(sizes), workers=4) <= 1.15 * ideal  # the small ones first
    assert makespan(sorted(sizes, reverse=True), workers=4) <= 1.15 * ideal
