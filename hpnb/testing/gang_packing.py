"""The wall time a sequence of gang trials takes as :class:`~hpnb.runner.ranks.placement.GangQueue`
places them, with no overhead at all: what the placement tests and ``benchmarks/distributed_trials.py``
compare real runs and goals against.

Example:
    >>> makespan([2, 1, 1], workers=2)
    2.0
"""

from __future__ import annotations

import heapq

from hpnb.runner.ranks.placement import GangQueue


def makespan(sizes: list[int], workers: int, duration: float = 1.0) -> float:
    """The wall time of trials of ``sizes`` ranks (queued in that order), each ``duration`` long, on
    ``workers`` single-slot workers (a trial's end frees its workers)."""
    queue: GangQueue[int] = GangQueue()
    for key, size in enumerate(sizes):
        queue.add(key, size)
    free = {f"w{i}": 1 for i in range(workers)}
    running: list[tuple[float, int, tuple[str, ...]]] = []
    now = 0.0
    while len(queue) or running:
        for key, placed in queue.place(free):
            for worker in placed:
                free[worker] -= 1
            heapq.heappush(running, (now + duration, key, placed))
        now, _, done = heapq.heappop(running)
        for worker in done:
            free[worker] += 1
    return now
