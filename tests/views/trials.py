"""Trials of a large search, made in memory, for the tests of what is drawn of it."""

from __future__ import annotations

import random

from hpnb.core.store import TrialRecord

TRIALS = 5000


def trial(trial_id: int, score: float | None, state: str = "COMPLETED", **params: object) -> TrialRecord:
    return TrialRecord(1, trial_id, dict(params), state, 10.0 * trial_id, 10.0 * trial_id + 5, None, None, 0,
                       None, 4, score, score, {}, None, None)  # fmt: skip


def many(count: int = TRIALS) -> list[TrialRecord]:
    """``count`` completed trials, random scores and a log-spread ``lr``."""
    rng = random.Random(0)
    return [trial(i, rng.random(), lr=10 ** rng.uniform(-5, -1)) for i in range(count)]
