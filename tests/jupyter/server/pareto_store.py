"""Searches with several objectives for the route and browser tests, written through the Store API.

A "model" of width ``w`` and depth ``d``: the loss falls as it widens, the latency grows, depth
only costs (as in ``tests/runner/two_objectives.py``), so the Pareto front of (loss, latency) is
exactly the trials of depth 1. The three-objective search adds a memory cost that falls with the
depth, so the pairs of its objectives have different fronts. One trial failed and one reported
no latency: neither has a rank.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store

OBJECTIVES = {"val_loss": "min", "latency_ms": "min"}
THREE = {**OBJECTIVES, "memory_mb": "min"}
PARAMETERS = {"width": {"min": 0.0, "max": 1.0}, "depth": {"type": "int", "min": 1, "max": 3}}


@dataclass(frozen=True)
class ParetoSearches:
    """Names in the store: two objectives, three objectives."""

    path: Path
    two: str = "two-goals"
    three: str = "three-goals"
    trials: int = 40
    failed: int = 5  # trial ids of the failed trial and of the one without a latency
    no_latency: int = 6


def goals(width: float, depth: int) -> dict[str, float]:
    """Every objective of a model."""
    return {"val_loss": 1.0 - width + 0.2 * (depth - 1), "latency_ms": 10.0 * width + 3.0 * depth,
            "memory_mb": 50.0 / depth + 20.0 * width}  # fmt: skip


def _search(store: Store, searches: ParetoSearches, name: str, metrics: dict[str, str], seed: int) -> None:
    spec = parse_spec({"metrics": metrics, "strategy": "random", "trials": searches.trials,
                       "parameters": PARAMETERS}).to_dict()  # fmt: skip
    record = store.create_experiment(name, spec, metric="val_loss", mode="min", strategy="random",
                                     budget=searches.trials, parallel=2)  # fmt: skip
    rng, start = random.Random(seed), time.time() - 60 * searches.trials
    for trial_id in range(searches.trials):
        params = {"width": round(rng.uniform(0, 1), 4), "depth": rng.randint(1, 3)}
        store.add_trial(record.id, trial_id, params, state="RUNNING")
        began = start + 60 * trial_id
        values = {key: value for key, value in goals(**params).items() if key in metrics}
        if trial_id == searches.no_latency:
            values.pop("latency_ms")
        loss = values["val_loss"]
        store.add_results(record.id, [ResultRow(trial_id, s + 1, s, began + s, loss + 0.5 / (s + 1),
                                                {"val_loss": loss + 0.5 / (s + 1)}) for s in range(3)])
        if trial_id == searches.failed:
            store.update_trial(record.id, trial_id, state="FAILED", start=began, end=began + 5,
                               error="ValueError: diverged")  # fmt: skip
            continue
        store.update_trial(record.id, trial_id, state="COMPLETED", start=began, end=began + 50, last_step=2,
                           value=loss, best=loss, metrics=values)  # fmt: skip
    store.update_experiment(record.id, state="COMPLETED", message="budget reached")


def write_pareto_searches(path: Path) -> ParetoSearches:
    """Add the searches of :class:`ParetoSearches` to the store at ``path`` (once)."""
    searches = ParetoSearches(path)
    with Store(path) as store:
        names = {record.name for record in store.experiments()}
        if searches.two not in names:
            _search(store, searches, searches.two, OBJECTIVES, seed=11)
        if searches.three not in names:
            _search(store, searches, searches.three, THREE, seed=12)
    return searches
