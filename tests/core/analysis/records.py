"""Stored trials built directly, for the analysis tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from hpnb.core.space import SearchSpace
from hpnb.core.store import TrialRecord


def trial(trial_id: int, value: float | None, params: dict[str, Any] | None = None, *,
          state: str = "COMPLETED", start: float | None = 0.0, end: float | None = 1.0,
          metrics: dict[str, Any] | None = None) -> TrialRecord:
    """A stored trial whose latest target value is ``value``."""
    return TrialRecord(1, trial_id, dict(params or {}), state, start, end, None, None, 0, None, None,
                       value, value, dict(metrics or {}), None, None)


def sampled(space: SearchSpace, n: int, score: Any, seed: int = 0) -> list[TrialRecord]:
    """``n`` completed trials at random configurations of ``space``, scored by ``score(config)``."""
    rng = np.random.default_rng(seed)
    trials = []
    for i in range(n):
        config = space.sample(rng)
        trials.append(trial(i, float(score(config)), config, start=float(i), end=float(i) + 1.5))
    return trials
