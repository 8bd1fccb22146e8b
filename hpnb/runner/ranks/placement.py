"""Placing gangs: every rank of a trial starts together or not at all, counted in worker slots.

No trial ever holds some of its ranks while it waits for the others, so two trials that each want
2 of 3 free workers never deadlock: one takes two workers, the other waits whole. Trials wait in
the order they came; one that does not fit yet lets smaller ones behind it take what is free
(backfill), until it has been passed over :data:`PATIENCE` times: then nothing behind it starts
until it fits, so a large trial is never starved by a stream of small ones.

Example:
    >>> queue: GangQueue[str] = GangQueue()
    >>> queue.add("a", 2); queue.add("b", 1)
    >>> queue.place({"w1": 1, "w2": 0, "w3": 1})
    [('a', ('w1', 'w3'))]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: how many times a waiting trial lets smaller ones behind it start before it holds the queue.
PATIENCE = 4


@dataclass
class _Waiting(Generic[K]):
    key: K
    ranks: int
    passed_over: int = 0


class GangQueue(Generic[K]):
    """Trials waiting for their ranks' slots, in the order they came (see the module's docstring)."""

    def __init__(self) -> None:
        self._waiting: list[_Waiting[K]] = []

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, key: K, ranks: int) -> None:
        """Queue trial ``key``, whose ranks each need a slot on a worker of their own."""
        self._waiting.append(_Waiting(key, ranks))

    def remove(self, key: K) -> bool:
        """Drop ``key`` from the queue (cancelled before it started); whether it was there."""
        before = len(self._waiting)
        self._waiting = [w for w in self._waiting if w.key != key]
        return len(self._waiting) < before

    def place(self, free: Mapping[str, int]) -> list[tuple[K, tuple[str, ...]]]:
        """The trials that start now and the worker of each rank, taken from ``free`` (free slots
        per worker); the others stay queued."""
        left = dict(free)
        placed: list[tuple[K, tuple[str, ...]]] = []
        blocked: list[_Waiting[K]] = []
        for waiting in list(self._waiting):
            if any(earlier.passed_over >= PATIENCE for earlier in blocked):
                break  # an earlier trial holds the queue: what is free is kept for it
            workers = _choose(left, waiting.ranks)
            if workers is None:
                blocked.append(waiting)
                continue
            for earlier in blocked:
                earlier.passed_over += 1
            for worker in workers:
                left[worker] -= 1
            self._waiting.remove(waiting)
            placed.append((waiting.key, workers))
        return placed


def _choose(free: Mapping[str, int], ranks: int) -> tuple[str, ...] | None:
    """``ranks`` distinct workers with a free slot, the fullest first (what stays free stays
    together for larger trials), or None when there are not enough."""
    usable = sorted((w for w, n in free.items() if n > 0), key=lambda w: (free[w], w))
    return tuple(usable[:ranks]) if len(usable) >= ranks else None
