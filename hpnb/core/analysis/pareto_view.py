"""The Pareto view of a search with several objectives: two objectives against each other, every
scored trial a point, the front drawn as a line.

:func:`pareto_view` is what the notebook dashboard and the JupyterLab view draw: the points of
the trials that have a value for every objective (bounded: the whole front, then an even sample
of the others taken in rank order, so ten thousand trials send two thousand points), their
non-domination rank, and
the front of the two objectives shown, in order along the first axis. Any pair of objectives
can be shown; the rank is always the search's, over all its objectives.

Example:
    >>> from hpnb.core.objectives import Objective
    >>> from hpnb.core.store import TrialRecord
    >>> def trial(i, loss, latency):
    ...     return TrialRecord(1, i, {"w": i}, "COMPLETED", 0.0, 1.0, None, None, 0, None, None,
    ...                        loss, loss, {"loss": loss, "latency": latency}, None, None)
    >>> view = pareto_view([trial(0, 0.9, 1.0), trial(1, 0.5, 5.0), trial(2, 0.6, 6.0)],
    ...                    (Objective("loss"), Objective("latency")))
    >>> [(p.trial_id, p.rank) for p in view.points], view.front
    ([(0, 0), (1, 0), (2, 1)], [1, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hpnb.core.errors import HpnbError
from hpnb.core.non_domination import non_domination_ranks
from hpnb.core.objectives import Objective, losses
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import trial_scores

#: the most points a Pareto view sends: the lowest ranks first, then an even sample.
MAX_POINTS = 2_000


@dataclass(frozen=True)
class ParetoPoint:
    """One trial in the Pareto view: its two shown objectives' values and its rank (0: the front)."""

    trial_id: int
    x: float
    y: float
    rank: int
    state: str


@dataclass(frozen=True)
class ParetoView:
    """Two objectives against each other.

    Attributes:
        x, y: the objectives on the axes.
        points: the trials drawn, lowest rank first.
        front: the ids of the trials on the front of ``x`` and ``y`` (these two alone), ordered
            along ``x``: the line to draw through them.
        scored: how many trials have every objective's value (``points`` may be fewer).
    """

    x: Objective
    y: Objective
    points: list[ParetoPoint]
    front: list[int]
    scored: int


def pareto_view(trials: Sequence[TrialRecord], objectives: Sequence[Objective], x: str | None = None,
                y: str | None = None, limit: int = MAX_POINTS) -> ParetoView:
    """The Pareto view of ``x`` against ``y`` (default: the first two objectives).

    Raises:
        HpnbError: fewer than two objectives, or ``x``/``y`` not one of them, or the same one.
    """
    shown_x, shown_y = _axes(objectives, x, y)
    kept = [(t, s) for t in sorted(trials, key=lambda t: t.trial_id)
            if (s := trial_scores(t, objectives)) is not None]
    ranks = non_domination_ranks([losses(s, objectives) for _, s in kept])
    index = {o.name: i for i, o in enumerate(objectives)}
    points = [ParetoPoint(t.trial_id, s[index[shown_x.name]], s[index[shown_y.name]], rank, t.state)
              for (t, s), rank in zip(kept, ranks, strict=True)]
    return ParetoView(shown_x, shown_y, _bounded(points, limit), _front_line(points, shown_x, shown_y),
                      len(points))


def _axes(objectives: Sequence[Objective], x: str | None, y: str | None) -> tuple[Objective, Objective]:
    if len(objectives) < 2:
        raise HpnbError("pareto: the search has one objective; a Pareto view needs two or more")
    by_name = {o.name: o for o in objectives}
    names = list(by_name)
    for given in (x, y):
        if given is not None and given not in by_name:
            raise HpnbError(f"pareto: {given!r} is not an objective of the search; "
                            f"objectives: {', '.join(names)}")
    shown_x = by_name[x] if x is not None else objectives[0]
    shown_y = by_name[y] if y is not None else next(o for o in objectives if o.name != shown_x.name)
    if shown_x.name == shown_y.name:
        raise HpnbError(f"pareto: x and y are both {shown_x.name!r}; choose two objectives")
    return shown_x, shown_y


def _front_line(points: Sequence[ParetoPoint], x: Objective, y: Objective) -> list[int]:
    """The trials no other beats on ``x`` and ``y`` alone, along ``x``."""
    pairs = [(x.loss(p.x), y.loss(p.y)) for p in points]
    on_front = [p for p, rank in zip(points, non_domination_ranks(pairs), strict=True) if rank == 0]
    return [p.trial_id for p in sorted(on_front, key=lambda p: (p.x, p.y, p.trial_id))]


def _bounded(points: list[ParetoPoint], limit: int) -> list[ParetoPoint]:
    """At most ``limit`` points: by rank, the last rank that fits cut to an even sample."""
    ordered = sorted(points, key=lambda p: (p.rank, p.trial_id))
    if len(ordered) <= limit:
        return ordered
    lowest = [p for p in ordered if p.rank == 0][:limit]
    rest = ordered[len(lowest):]
    room = limit - len(lowest)
    step = len(rest) / room if room else 0
    return lowest + [rest[int(i * step)] for i in range(room)]
