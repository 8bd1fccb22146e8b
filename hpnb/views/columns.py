"""The leaderboard's columns, as the cell's table and the Lab's route both sort them.

The fixed columns (rank, trial, score, state, duration, start), with several objectives the
Pareto rank and one per objective, then one per parameter; :func:`sorted_trials` orders a
search's trials by any of them, ties by trial id, missing values last.

Example:
    >>> sort_key_names(["lr"])[:4]
    ['rank', 'trial', 'score', 'state']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from hpnb.core.objectives import Objective
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import Ranking
from hpnb.views.ranking import (
    PARETO_COLUMN,
    SearchRanking,
    as_ranking,
    finished_first,
    objective_key,
    objective_sort_keys,
)

#: columns of the leaderboard that are not parameters, in the order the table shows them.
FIXED_COLUMNS = ("rank", "trial", "score", "state", "duration", "start")
#: a parameter column's sort key is this prefix and the parameter's name.
PARAM_PREFIX = "param:"


def trial_duration(trial: TrialRecord, now: float) -> float | None:
    """Seconds a trial ran (so far, while it runs); None if it never started."""
    if trial.start is None:
        return None
    end = trial.end if trial.end is not None else now
    return max(0.0, end - trial.start)


def sort_key_names(param_names: Sequence[str], objectives: Sequence[Objective] = ()) -> list[str]:
    """Every accepted ``sort`` value: the fixed columns, with several ``objectives`` the Pareto
    rank's and ``objective:NAME`` per objective, then ``param:NAME`` per parameter."""
    return [*FIXED_COLUMNS, *objective_sort_keys(objectives), *(PARAM_PREFIX + name for name in param_names)]


def _param_key(name: str) -> Callable[[TrialRecord], tuple[int, float, str] | None]:
    """Numbers before text, each in their order; None for a trial without the parameter."""

    def key(trial: TrialRecord) -> tuple[int, float, str] | None:
        value = trial.params.get(name)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return (0, float(value), "")
        return (1, 0.0, str(value))

    return key


def sorted_trials(
    trials: Sequence[TrialRecord], ranking: Ranking | SearchRanking, sort: str, descending: bool, now: float
) -> list[TrialRecord]:
    """Trials in the order of column ``sort`` (see :func:`sort_key_names`); ties by trial id.

    Rank, score and Pareto rank sort by the search's ranking (a mode, its objectives or a
    :class:`SearchRanking`; ``descending`` puts the worst first; with one objective, partial
    scores of trials under way after the finished ones); an objective column by its
    value, best first when ascending; missing values stay last whichever the direction.
    """
    order = as_ranking(trials, ranking)
    if sort in ("rank", "score", PARETO_COLUMN):
        scored = order.scored
        by_rank = scored[::-1] + order.order[len(scored):] if descending else list(order.order)
        return by_rank if order.several else finished_first(by_rank)
    keys: dict[str, Callable[[TrialRecord], Any]] = {
        "trial": lambda t: t.trial_id,
        "state": lambda t: t.state,
        "duration": lambda t: trial_duration(t, now),
        "start": lambda t: t.start,
    }
    key: Callable[[TrialRecord], Any] = (
        _param_key(sort[len(PARAM_PREFIX):]) if sort.startswith(PARAM_PREFIX)
        else objective_key(order, sort) or keys[sort])
    by_id = sorted(trials, key=lambda t: t.trial_id)
    present = [t for t in by_id if key(t) is not None]
    present.sort(key=key, reverse=descending)
    return present + [t for t in by_id if key(t) is None]
