"""Repeated configurations of a noisy search: their runs, mean and spread, and the best by its
estimated mean rather than by one lucky observation.

A configuration run more than once (``noise: true`` lets ``gp`` run promising ones again) is judged
by all its runs. Its estimate is the mean of its runs shrunk towards the mean of every
configuration by as much as the noise explains (a normal model fitted to the results: the noise
variance pooled from the repeats, the spread of the true values from the spread of the means), so
one lucky run counts for less than several; without repeats it is the one value.

Example:
    >>> runs = group_runs([(0, {"x": 1}, 0.30), (1, {"x": 2}, 0.05), (2, {"x": 1}, 0.20),
    ...                    (3, {"x": 3}, 0.50), (4, {"x": 1}, 0.25), (5, {"x": 2}, 0.35)])
    >>> [(r.trial_ids, r.count, round(r.mean, 3)) for r in runs]
    [((0, 2, 4), 3, 0.25), ((1, 5), 2, 0.2), ((3,), 1, 0.5)]
    >>> best_runs(runs).trial_ids
    (1, 5)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the smallest spread of true values, as a share of the noise variance (keeps the estimate finite).
MIN_SPREAD = 1e-3


def config_key(params: Mapping[str, Any]) -> Hashable:
    """One key per configuration, whatever the order of its parameters (the set of its items, JSON
    text when a value is a list or a mapping)."""
    try:
        return frozenset(params.items())
    except TypeError:
        return json.dumps(dict(params), sort_keys=True, default=str)


@dataclass(frozen=True)
class Runs:
    """The runs of one configuration: trial ids in order (the first ran it first) and their losses
    (to minimise)."""

    trial_ids: tuple[int, ...]
    losses: tuple[float, ...]

    @property
    def count(self) -> int:
        return len(self.losses)

    @property
    def mean(self) -> float:
        return math.fsum(self.losses) / len(self.losses)

    @property
    def std(self) -> float | None:
        """The sample standard deviation of the runs (None for a single run)."""
        if self.count < 2:
            return None
        mean = self.mean
        return math.sqrt(math.fsum((v - mean) ** 2 for v in self.losses) / (self.count - 1))


def group_runs(items: Iterable[tuple[int, Mapping[str, Any], float]]) -> list[Runs]:
    """``(trial id, params, loss)`` grouped by configuration, in the order each was first run."""
    ids: dict[Hashable, list[int]] = {}
    losses: dict[Hashable, list[float]] = {}
    for trial_id, params, loss in items:
        key = config_key(params)
        ids.setdefault(key, []).append(int(trial_id))
        losses.setdefault(key, []).append(float(loss))
    return [Runs(tuple(ids[k]), tuple(losses[k])) for k in ids]


def noise_variance(runs: Sequence[Runs]) -> float | None:
    """The variance of one run around its configuration's mean, pooled over the repeated
    configurations; None without any repeat."""
    freedom = sum(r.count - 1 for r in runs)
    if freedom == 0:
        return None
    return math.fsum((v - r.mean) ** 2 for r in runs if r.count > 1 for v in r.losses) / freedom


def is_noisy(runs: Sequence[Runs]) -> bool:
    """Whether a configuration run more than once gave different results."""
    return bool(noise_variance(runs))


def estimates(runs: Sequence[Runs]) -> list[float]:
    """Each configuration's estimated mean loss: its mean shrunk towards the mean of every
    configuration by the noise (its mean alone when the noise is unknown)."""
    means = [r.mean for r in runs]
    noise = noise_variance(runs)
    if not noise or len(runs) < 2:
        return means
    grand = math.fsum(means) / len(means)
    observed = math.fsum((m - grand) ** 2 for m in means) / (len(means) - 1)
    explained = noise * math.fsum(1.0 / r.count for r in runs) / len(runs)
    spread = max(observed - explained, MIN_SPREAD * noise)
    return [(r.count * r.mean / noise + grand / spread) / (r.count / noise + 1.0 / spread) for r in runs]


def ranked_runs(runs: Sequence[Runs]) -> list[Runs]:
    """The configurations by estimated mean loss, lowest first (ties to the one run first)."""
    values = estimates(runs)
    return [runs[i] for i in sorted(range(len(runs)), key=lambda i: (values[i], runs[i].trial_ids[0]))]


def best_runs(runs: Sequence[Runs]) -> Runs | None:
    """The configuration of lowest estimated mean loss; None if none."""
    return next(iter(ranked_runs(runs)), None)


def spread_text(runs: int, std: float | None, number: Callable[[float], str] = "{:.4g}".format) -> str:
    """`` ± 0.012 (mean of 3 runs)`` for a configuration run more than once, else nothing.

    Example:
        >>> spread_text(3, 0.0123), spread_text(1, None)
        (' ± 0.0123 (mean of 3 runs)', '')
    """
    if runs < 2:
        return ""
    spread = "" if std is None else f" \u00b1 {number(std)}"
    return f"{spread} (mean of {runs} runs)"
