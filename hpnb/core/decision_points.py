"""The steps at which an early-stopping rule or a strategy can decide on a running trial.

Rules and strategies say *where* they decide; the runner makes a trial wait for the
verdict at those steps only, so a decision lands exactly at the step it was made for,
and every other report stays fire-and-forget. A trial that skips steps (it reports
every tenth) waits at the first report at or beyond a decision step, which is where
the rules judge it too.

Example:
    >>> points = DecisionPoints.at(2, 6) | DecisionPoints.every_from(4, start=4)
    >>> [step for step in range(1, 13) if points.crossed(step - 1, step)]
    [2, 4, 6, 8, 12]
    >>> points.crossed(2, 5)  # a trial that jumps from step 2 to step 5 passes the point at 4
    True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DecisionPoints:
    """A set of steps: explicit ones, and periodic series ``start, start + every, ...``.

    Attributes:
        steps: explicit decision steps.
        periodic: ``(start, every)`` pairs, each the series ``start + k * every`` for k >= 0.
    """

    steps: frozenset[int] = frozenset()
    periodic: tuple[tuple[int, int], ...] = ()

    @classmethod
    def at(cls, *steps: int | None) -> DecisionPoints:
        """Explicit steps (None entries are left out)."""
        return cls(frozenset(int(s) for s in steps if s is not None))

    @classmethod
    def every_from(cls, every: int, start: int) -> DecisionPoints:
        """The steps ``start, start + every, start + 2 * every, ...``."""
        if every < 1:
            raise ValueError(f"every must be at least 1 (got {every})")
        return cls(periodic=((int(start), int(every)),))

    def __or__(self, other: DecisionPoints) -> DecisionPoints:
        periodic = tuple(dict.fromkeys(self.periodic + other.periodic))
        return DecisionPoints(self.steps | other.steps, periodic)

    def __bool__(self) -> bool:
        return bool(self.steps or self.periodic)

    def crossed(self, previous: int | None, step: int) -> bool:
        """Whether a decision step lies in ``(previous, step]`` (``previous`` None: up to ``step``)."""
        low = -1 if previous is None else previous
        if step <= low:
            return False
        if any(low < s <= step for s in self.steps):
            return True
        return any(_series_hits(start, every, low, step) for start, every in self.periodic)


def _series_hits(start: int, every: int, low: int, high: int) -> bool:
    """Whether ``start + k * every`` (k >= 0) lies in ``(low, high]``."""
    if high < start:
        return False
    first = start if low < start else start + ((low - start) // every + 1) * every
    return first <= high
