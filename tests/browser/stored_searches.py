"""Finished searches written straight into the browser tests' store (fast and exact): one with
more trials than a page of the leaderboard holds, and a population-based one whose members
continued from one another.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store

METRIC = "val_loss"


@dataclass(frozen=True)
class StoredSearches:
    path: Path
    paged: str = "paged"
    paged_trials: int = 230
    paged_steps: int = 6
    pbt: str = "pbt-members"
    population: int = 4
    generations: int = 3
    pbt_steps: int = 4


def _paged(store: Store, searches: StoredSearches) -> None:
    spec = parse_spec({"metric": METRIC, "mode": "min", "strategy": "random", "trials": searches.paged_trials,
                       "parameters": {"lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1},
                                      "layers": {"type": "int", "min": 1, "max": 4}}})  # fmt: skip
    record = store.create_experiment(searches.paged, spec.to_dict(), metric=METRIC, mode="min",
                                     strategy="random", budget=searches.paged_trials, parallel=4)
    rng, start = random.Random(7), time.time() - 30 * searches.paged_trials
    with store.batch():
        for trial_id in range(searches.paged_trials):
            params = {"lr": 10 ** rng.uniform(-4, -1), "layers": rng.randint(1, 4)}
            store.add_trial(record.id, trial_id, params, state="RUNNING")
            began = start + 30 * trial_id + rng.uniform(0, 60)  # trials end out of their order
            floor = (math.log10(params["lr"]) + 2.5) ** 2 + 0.05 * params["layers"]
            values = [floor + 0.5 / (step + 1) for step in range(searches.paged_steps)]
            store.add_results(record.id, [ResultRow(trial_id, s + 1, s, began + s, v, {METRIC: v})
                                          for s, v in enumerate(values)])  # fmt: skip
            store.update_trial(record.id, trial_id, state="COMPLETED", start=began, end=began + 20,
                               last_step=searches.paged_steps - 1, value=values[-1], best=min(values),
                               metrics={METRIC: values[-1]})  # fmt: skip
    store.update_experiment(record.id, state="COMPLETED", message="budget reached")


def _pbt(store: Store, searches: StoredSearches) -> None:
    """Generation g's member m is trial g * population + m; from the second generation on, the
    weaker half continues from the best member of the generation before (an exploit)."""
    size = searches.population
    spec = parse_spec({"metric": "acc", "mode": "max", "trials": size * searches.generations,
                       "strategy": {"name": "pbt", "population": size, "ready": searches.pbt_steps,
                                    "max_steps": searches.pbt_steps * searches.generations},
                       "parameters": {"lr": {"min": 0.01, "max": 0.1}}})  # fmt: skip
    record = store.create_experiment(searches.pbt, spec.to_dict(), metric="acc", mode="max", strategy="pbt",
                                     budget=size * searches.generations, parallel=size)  # fmt: skip
    start = time.time() - 600
    for generation in range(searches.generations):
        for member in range(size):
            trial_id = generation * size + member
            parent = (generation - 1) * size if generation and member >= size // 2 else None
            store.add_trial(record.id, trial_id, {"lr": 0.01 + 0.02 * member}, parent=parent, state="RUNNING")
            first = generation * searches.pbt_steps
            steps = range(first, first + searches.pbt_steps)
            values = [0.5 + 0.03 * step + 0.01 * member for step in steps]
            store.add_results(record.id, [ResultRow(trial_id, k + 1, step, start + step, v, {"acc": v})
                                          for k, (step, v) in enumerate(zip(steps, values))])  # fmt: skip
            store.update_trial(record.id, trial_id, state="COMPLETED", start=start + first,
                               end=start + first + searches.pbt_steps, last_step=steps[-1], value=values[-1],
                               best=max(values), metrics={"acc": values[-1]})  # fmt: skip
    store.update_experiment(record.id, state="COMPLETED", message="budget reached")


def write_stored_searches(path: Path) -> StoredSearches:
    """Add the searches to the store at ``path`` (once; later calls only name them)."""
    searches = StoredSearches(path)
    with Store(path) as store:
        names = {record.name for record in store.experiments()}
        if searches.paged not in names:
            _paged(store, searches)
        if searches.pbt not in names:
            _pbt(store, searches)
    return searches
