"""Which configuration ``gp`` runs again in a noisy search, and when (as SMAC's intensification
re-runs its incumbent): every ``every``-th suggestion after the start-up design is a new run of the
configuration the search ranks best by its estimated mean (:mod:`hpnb.core.repeats`), unless it
has :data:`MAX_RUNS` runs, finished or running; then the next best. With several slots a
configuration may run in more than one at once: the end of a parallel search then tells its best
few apart as a sequential one does, rather than spreading its last runs over more configurations.

Example:
    >>> results = {0: ({"x": 1}, 0.3), 1: ({"x": 2}, 0.1), 2: ({"x": 3}, None)}
    >>> to_repeat(results, running=[])
    (1, {'x': 2})
    >>> to_repeat(results, running=[{"x": 2}] * 3)
    (1, {'x': 2})
    >>> to_repeat(results, running=[{"x": 2}] * 4)
    (0, {'x': 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from hpnb.core.repeats import config_key, group_runs, ranked_runs

#: the most runs of one configuration ``gp`` asks for, finished and running.
MAX_RUNS = 5
#: a repeat every this many suggestions after the start-up design, unless ``repeat_every`` is given.
DEFAULT_EVERY = 10
#: the share of the budget, at its end, spent on runs of the best configurations (``final_repeats``):
#: the search ends by telling its best few apart rather than by trusting one lucky result.
DEFAULT_FINAL = 0.1

Results = Mapping[int, tuple[Mapping[str, Any], float | None]]


def repeat_due(model_suggestions: int, every: int) -> bool:
    """Whether the next suggestion (``model_suggestions`` made since the start-up design) repeats."""
    return (model_suggestions + 1) % every == 0


def to_repeat(results: Results, running: Iterable[Mapping[str, Any]]) -> tuple[int, dict[str, Any]] | None:
    """(the first trial of the configuration, its params) to run again; None when none qualifies."""
    ordered = sorted(results)
    params = {tid: results[tid][0] for tid in ordered}
    runs = group_runs((tid, params[tid], loss) for tid in ordered if (loss := results[tid][1]) is not None)
    running_runs = Counter(config_key(p) for p in running)
    for one in ranked_runs(runs):
        first = one.trial_ids[0]
        if one.count + running_runs[config_key(params[first])] < MAX_RUNS:
            return first, dict(params[first])
    return None
