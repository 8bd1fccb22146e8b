"""Searches with a declared space for the experiment view's routes and browser tests.

Written through the Store API (fast, exact): the loss depends mostly on ``lr`` (log-scaled),
a little on ``layers`` (an integer) and on ``optimizer`` (categorical), so importance ranks
``lr`` first whatever the evaluator.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

from hpnb.core.store import ResultRow, Store

METRIC = "val_loss"
OPTIMIZERS = ("adam", "sgd", "rmsprop")
SPEC_PARAMETERS = {
    "lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1},
    "layers": {"type": "int", "min": 1, "max": 4},
    "optimizer": list(OPTIMIZERS),
}


@dataclass(frozen=True)
class InsightSearches:
    """Names in the store: two comparable searches, and one with a single finished trial."""

    path: Path
    tuned: str = "tuned-a"
    other: str = "tuned-b"
    single: str = "one-trial"
    trials: int = 30
    steps: int = 5


def loss(lr: float, layers: int, optimizer: str, step: int) -> float:
    return (math.log10(lr) + 2.5) ** 2 + 0.05 * layers + 0.02 * OPTIMIZERS.index(optimizer) + 0.5 / (step + 1)


def _search(store: Store, name: str, trials: int, steps: int, seed: int) -> None:
    spec = {"metric": METRIC, "mode": "min", "strategy": "random", "trials": trials,
            "parameters": SPEC_PARAMETERS}  # fmt: skip
    record = store.create_experiment(name, spec, metric=METRIC, mode="min", strategy="random",
                                     budget=trials, parallel=2)  # fmt: skip
    rng, start = random.Random(seed), time.time() - 60 * trials
    for trial_id in range(trials):
        params = {"lr": 10 ** rng.uniform(-4, -1), "layers": rng.randint(1, 4),
                  "optimizer": rng.choice(OPTIMIZERS)}
        store.add_trial(record.id, trial_id, params, state="RUNNING")
        began = start + 60 * trial_id
        values = [loss(params["lr"], params["layers"], params["optimizer"], s) for s in range(steps)]
        store.add_results(record.id, [ResultRow(trial_id, s + 1, s, began + s, v, {METRIC: v})
                                      for s, v in enumerate(values)])  # fmt: skip
        store.update_trial(record.id, trial_id, state="COMPLETED", start=began, end=began + 50,
                           last_step=steps - 1, value=values[-1], best=min(values),
                           metrics={METRIC: values[-1]}, worker="tcp://127.0.0.1:1")  # fmt: skip
    store.update_experiment(record.id, state="COMPLETED", message="budget reached")


def write_insight_searches(path: Path) -> InsightSearches:
    """Add the searches of :class:`InsightSearches` to the store at ``path``."""
    names = InsightSearches(path)
    with Store(path) as store:
        _search(store, names.tuned, names.trials, names.steps, seed=1)
        _search(store, names.other, names.trials, names.steps, seed=2)
        _search(store, names.single, 1, names.steps, seed=3)
    return names
