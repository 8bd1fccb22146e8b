"""How a search's trials are ranked and their objectives shown: one rule for the Lab's routes and
the cell's dashboard.

A search ranks its trials as :func:`hpnb.core.summary.ranked` does: by score with one objective,
by Pareto rank then crowding distance with several. The leaderboards, the parallel coordinates
and the slices all take their order from a :class:`SearchRanking`, which also holds each trial's
1-based position and (several objectives) its non-domination rank. The Lab's routes keep the
ranking of a search no driver works on with its trials
(:func:`hpnb.jupyter.server.trials_cache.search_ranking`), so a page of the leaderboard does not
rank 10,000 trials again; the cell's dashboard ranks the trials it read.

Example:
    >>> from hpnb.core.objectives import Objective
    >>> from hpnb.core.store import TrialRecord
    >>> def trial(i, loss, latency):
    ...     return TrialRecord(1, i, {}, "COMPLETED", 0.0, 1.0, None, None, 0, None, None,
    ...                        loss, loss, {"loss": loss, "latency": latency}, None, None)
    >>> ranking = rank_trials([trial(0, 0.9, 1.0), trial(1, 0.5, 5.0), trial(2, 0.6, 6.0)],
    ...                       (Objective("loss"), Objective("latency")))
    >>> [t.trial_id for t in ranking.order], ranking.pareto
    ([0, 1, 2], {0: 0, 1: 0, 2: 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from hpnb.core.constraints import Constraint, feasibility, is_feasible
from hpnb.core.objectives import Objective, finite_number
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import (
    Ranking,
    pareto_ranking,
    ranked,
    trial_score,
    trial_scores,
)
from hpnb.core.trial import TrialState

#: an objective column's sort key is this prefix and the objective's name.
OBJECTIVE_PREFIX = "objective:"
#: the sort key of the Pareto rank column (several objectives).
PARETO_COLUMN = "pareto"


@dataclass(frozen=True)
class SearchRanking:
    """The trials of one search in rank order, and what each row shows of its objectives.

    Attributes:
        objectives: what the search optimises (one, or several).
        order: every trial, best first; trials without every score last, by id.
        positions: trial id -> 1-based position in ``order``, for the trials with every score.
        pareto: trial id -> non-domination rank (0: on the front); empty with one objective.
        constraints: the search's constraints; a row of a trial that fails one says so.
        ties: trial id -> (rank, tied) as the leaderboards show it (:func:`tied_positions`);
            empty with several objectives.
    """

    objectives: tuple[Objective, ...]
    order: list[TrialRecord]
    positions: dict[int, int]
    pareto: dict[int, int]
    constraints: tuple[Constraint, ...] = ()
    ties: dict[int, tuple[int, bool]] = field(default_factory=dict)

    @property
    def several(self) -> bool:
        return len(self.objectives) > 1

    @property
    def scored(self) -> list[TrialRecord]:
        """The trials with every score, best first."""
        return self.order[: len(self.positions)]

    @cached_property
    def spans(self) -> dict[str, tuple[float, float]]:
        """``{objective: (lowest, highest)}`` over every scored trial (the parallel coordinates'
        axes, whichever trials their sample draws), computed once per ranking."""
        spans: dict[str, tuple[float, float]] = {}
        for trial in self.scored:
            scores = trial_scores(trial, self.objectives) or ()
            for objective, value in zip(self.objectives, scores, strict=True):
                low, high = spans.get(objective.name, (value, value))
                spans[objective.name] = (min(low, value), max(high, value))
        return spans

    def values(self, trial: TrialRecord) -> dict[str, float | None]:
        """``{objective: value}`` as the leaderboard shows it: one objective, its score; several,
        each objective's latest finite value (none for a failed trial)."""
        if not self.several:
            return {self.objectives[0].name: trial_score(trial)}
        failed = trial.state == TrialState.FAILED.value
        return {o.name: None if failed else finite_number(trial.metrics.get(o.name)) for o in self.objectives}

    def row(self, trial: TrialRecord) -> dict[str, Any]:
        """What a trial's JSON gains: its rank (equal scores share one: ``tied``), its objectives'
        values, whether they are ``partial`` (the trial is under way), its Pareto rank and, with
        constraints, whether it is feasible and why not."""
        rank, tied = self.ties.get(trial.trial_id) or (self.positions.get(trial.trial_id), False)
        values = self.values(trial)
        partial = is_partial(trial) and any(v is not None for v in values.values())
        row: dict[str, Any] = {"rank": rank, "tied": tied, "partial": partial, "values": values,
                               "pareto_rank": self.pareto.get(trial.trial_id)}
        if self.constraints:
            verdict = feasibility(trial.metrics, self.constraints)
            row.update(feasible=verdict.feasible, infeasible_because=list(verdict.reasons))
        return row

    def objectives_json(self) -> list[dict[str, str]]:
        return [o.to_dict() for o in self.objectives]


def rank_trials(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
                constraints: Sequence[Constraint] = ()) -> SearchRanking:
    """The :class:`SearchRanking` of ``trials`` by ``objectives`` (infeasible trials after the
    feasible ones, see :mod:`hpnb.core.summary`)."""
    objectives = tuple(objectives)
    if len(objectives) > 1:
        order, pareto = pareto_ranking(trials, objectives, constraints)  # the ranks once, for both
    else:
        order, pareto = ranked(trials, objectives, constraints), {}
    scored = [t for t in order if trial_scores(t, objectives) is not None]
    positions = {t.trial_id: position for position, t in enumerate(scored, start=1)}
    ties = {} if len(objectives) > 1 else tied_positions(order, constraints)
    return SearchRanking(objectives, order, positions, pareto, tuple(constraints), ties)


#: the states whose score may still change (a set of the stored strings: the leaderboard asks per trial).
_PARTIAL_STATES = frozenset(s.value for s in TrialState if s.is_under_way or s == TrialState.PAUSED)


def is_partial(trial: TrialRecord) -> bool:
    """Whether the trial's score may still change (it runs, waits or is paused)."""
    return trial.state in _PARTIAL_STATES


def finished_first(ordered: Sequence[TrialRecord]) -> list[TrialRecord]:
    """``ordered`` with the scores of finished trials first, then partial scores, then no score."""
    done: list[TrialRecord] = []
    partial: list[TrialRecord] = []
    unscored: list[TrialRecord] = []
    for trial in ordered:
        (unscored if trial_score(trial) is None else partial if is_partial(trial) else done).append(trial)
    return done + partial + unscored


def tied_positions(order: Sequence[TrialRecord],
                   constraints: Sequence[Constraint] = ()) -> dict[int, tuple[int, bool]]:
    """Trial id -> (1-based rank, tied) of trials already in rank order: equal scores share a
    rank (1, 2, 2, 4), a feasible and an infeasible trial never; trials whose score is partial
    rank after every finished one."""
    scored = finished_first(order)
    done = [t for t in scored if trial_score(t) is not None and not is_partial(t)]
    keys = [(is_feasible(t, constraints), trial_score(t)) for t in done]
    counts = Counter(keys)
    out: dict[int, tuple[int, bool]] = {}
    first, previous = 0, None
    for position, (trial, key) in enumerate(zip(done, keys, strict=True)):
        if position == 0 or key != previous:
            first, previous = position, key
        out[trial.trial_id] = (first + 1, counts[key] > 1)
    partial = [t for t in scored[len(done):] if trial_score(t) is not None]
    for position, trial in enumerate(partial, start=len(done) + 1):
        out[trial.trial_id] = (position, False)
    return out


def tied_ranks(trials: Sequence[TrialRecord], mode: str,
               constraints: Sequence[Constraint] = ()) -> dict[int, tuple[int, bool]]:
    """Trial id -> (1-based rank, tied) of ``trials`` ranked by ``mode`` ("min" or "max"),
    infeasible ones after the feasible.

    Example:
        >>> from hpnb.core.store.records import TrialRecord
        >>> def t(i, v, state="COMPLETED"):
        ...     return TrialRecord(1, i, {}, state, 0.0, 1.0, None, None, 0, None, None, v, v, {}, None, None)
        >>> tied_ranks([t(0, 0.9), t(1, 0.97), t(2, 0.97), t(3, 0.99, "RUNNING")], "max")
        {1: (1, True), 2: (1, True), 0: (3, False), 3: (4, False)}
    """
    return tied_positions(ranked(trials, mode, constraints), constraints)


def objective_sort_keys(objectives: Sequence[Objective]) -> list[str]:
    """The sort keys of the objective columns: ``objective:NAME`` each, and (several objectives)
    the Pareto rank's."""
    if len(objectives) < 2:
        return []
    return [PARETO_COLUMN, *(OBJECTIVE_PREFIX + o.name for o in objectives)]


def objective_key(ranking: SearchRanking, sort: str) -> Callable[[TrialRecord], float | None] | None:
    """The key of an objective column (``objective:NAME``): the value made a loss, so that an
    ascending sort puts the best first as the rank does; None for another column."""
    if not sort.startswith(OBJECTIVE_PREFIX):
        return None
    name = sort[len(OBJECTIVE_PREFIX):]
    objective = next(o for o in ranking.objectives if o.name == name)

    def key(trial: TrialRecord) -> float | None:
        value = ranking.values(trial)[name]
        return None if value is None else objective.loss(value)

    return key


def as_ranking(trials: Sequence[TrialRecord], ranking: Ranking | SearchRanking) -> SearchRanking:
    """``ranking`` itself, or the ranking of ``trials`` by a mode ("min", "max") or objectives."""
    if isinstance(ranking, SearchRanking):
        return ranking
    objectives = (Objective("score", "max" if ranking == "max" else "min"),) if isinstance(ranking, str) \
        else tuple(ranking)
    return rank_trials(trials, objectives)


def ranks(trials: Sequence[TrialRecord], ranking: Ranking | SearchRanking) -> dict[int, int]:
    """Trial id -> 1-based rank, for trials with a score (every score, with several objectives)."""
    return dict(as_ranking(trials, ranking).positions)
