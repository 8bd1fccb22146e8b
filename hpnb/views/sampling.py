"""What is drawn of a large search: bounded samples, the same for the cell's dashboard and the Lab.

A search of 10,000 trials and 200,000 results must draw in a blink, so no plot is sent
everything: parallel coordinates draw the best trials and an even sample of the others,
curves a few trials (the selected, running ones, the best), each curve thinned as it grows.

Example:
    >>> even_sample(list(range(10)), 3)
    [0, 3, 6]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import ExperimentState, Ranking, trial_state
from hpnb.core.trial import TrialState
from hpnb.views.ranking import SearchRanking, as_ranking

#: parallel coordinates draw the best trials and an even sample of the others: 250 others show
#: where the rest of the search went, in a quarter of the data (sent, and held by the page) of 1,000.
PARCOORDS_BEST = 1000
PARCOORDS_SAMPLE = 250
#: curves of at most this many trials are sent (the best, then running ones, then the selected).
CURVE_TRIALS = 20

T = TypeVar("T")


def even_sample(items: Sequence[T], count: int) -> list[T]:
    """``count`` items evenly spaced over ``items`` (all of them when there are fewer), in order."""
    if len(items) <= count:
        return list(items)
    if count <= 0:
        return []
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


@dataclass(frozen=True)
class ParcoordsSample:
    """The trials parallel coordinates draw: ``best`` best-ranked, then ``sampled`` others."""

    trials: list[TrialRecord]
    scored: int
    best: int
    sampled: int


def parcoords_sample(
    trials: Sequence[TrialRecord],
    ranking: Ranking | SearchRanking,
    best: int = PARCOORDS_BEST,
    sample: int = PARCOORDS_SAMPLE,
    selected: int | None = None,
) -> ParcoordsSample:
    """The best ``best`` scored trials, an evenly spaced ``sample`` of the other scored ones
    (by trial id, so it stays put between redraws), and the ``selected`` trial if scored.
    With several objectives, "scored" is a value for every objective and "best" the summary's
    order (Pareto rank, then crowding)."""
    scored = as_ranking(trials, ranking).scored
    top = scored[:best]
    rest = even_sample(sorted(scored[best:], key=lambda t: t.trial_id), sample)
    chosen = top + rest
    if selected is not None and all(t.trial_id != selected for t in chosen):
        chosen += [t for t in scored if t.trial_id == selected]
    return ParcoordsSample(chosen, len(scored), len(top), len(rest))


def curve_trials(
    trials: Sequence[TrialRecord], mode: Ranking | SearchRanking, search: ExperimentState,
    selected: int | None, limit: int = CURVE_TRIALS,
) -> list[TrialRecord]:
    """Whose curves are drawn: the selected trial, running ones, then the best, ``limit`` at most."""
    by_id = {t.trial_id: t for t in trials}
    chosen: dict[int, TrialRecord] = {}
    if selected is not None and selected in by_id:
        chosen[selected] = by_id[selected]
    # a search no driver works on has no running trial (they show as interrupted)
    running = ([t for t in trials if trial_state(t, search) == TrialState.RUNNING.value]
               if search.is_active else [])
    for trial in running[: limit // 2] + as_ranking(trials, mode).order:
        if len(chosen) >= limit:
            break
        if trial.last_step is not None or trial.state == TrialState.RUNNING.value:
            chosen.setdefault(trial.trial_id, trial)
    return sorted(chosen.values(), key=lambda t: t.trial_id)


class Series:
    """One curve, thinned as it grows: at most about ``2 * max_points`` points plus the latest.

    When full, every other kept point is dropped and only every ``stride``-th new
    report is kept, so a trial reporting a million steps costs the same to draw
    as one reporting a thousand.
    """

    def __init__(self, max_points: int) -> None:
        self.max_points = max_points
        self.xs: list[float] = []
        self.ys: list[float] = []
        self.stride = 1
        self._seen = 0
        self.last: tuple[float, float] | None = None

    def append(self, x: float, y: float) -> None:
        self.last = (x, y)
        if self._seen % self.stride == 0:
            self.xs.append(x)
            self.ys.append(y)
            if len(self.xs) >= 2 * self.max_points:
                self.xs, self.ys = self.xs[::2], self.ys[::2]
                self.stride *= 2
        self._seen += 1

    def points(self) -> tuple[list[float], list[float]]:
        """The kept points, always ending with the latest report."""
        if self.last is None or (self.xs and self.xs[-1] == self.last[0] and self.ys[-1] == self.last[1]):
            return list(self.xs), list(self.ys)
        return [*self.xs, self.last[0]], [*self.ys, self.last[1]]
