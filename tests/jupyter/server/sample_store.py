"""Experiments for the route and browser tests.

``write_sample_store`` writes a finished and a running experiment through the Store API
(fast, exact counts); it is the one function those tests call for their data. ``start_search``
runs a real ``hpnb.search`` on a local Dask cluster into the same kind of store file.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle

from hpnb.core.store import ResultRow, Store
from tests.jupyter.server import objectives

# Dask workers import nothing from the test tree: ship the objectives by value.
cloudpickle.register_pickle_by_value(objectives)

FINISHED = "mlp-lr"
RUNNING = "cnn-depth"
METRIC = "val_loss"
STEPS = 5
OPTIMIZERS = ("adam", "sgd", "rmsprop")


@dataclass(frozen=True)
class SampleStore:
    path: Path
    finished: str
    running: str
    finished_trials: int
    failed_trials: int
    running_trials: int


def _loss(lr: float, layers: int, step: int) -> float:
    return (math.log10(lr) + 2.5) ** 2 / 4 + 0.05 * layers + 1.0 / (step + 1)


def _write_trial(store: Store, experiment_id: int, trial_id: int, steps: int, state: str) -> None:
    lr = 10 ** (-4 + 0.5 * trial_id)
    layers = 1 + trial_id % 3
    params = {"lr": lr, "layers": layers, "optimizer": OPTIMIZERS[trial_id % 3]}
    store.add_trial(experiment_id, trial_id, params, state="RUNNING")
    now = time.time()
    rows = [
        ResultRow(
            trial_id, step + 1, step, now + step, _loss(lr, layers, step), {METRIC: _loss(lr, layers, step)}
        )
        for step in range(steps)
    ]
    store.add_results(experiment_id, rows)
    values = [row.value for row in rows if row.value is not None]
    fields: dict[str, object] = {"state": state, "start": now, "last_step": steps - 1 if steps else None}
    if state != "RUNNING":
        fields["end"] = now + steps
    if state == "COMPLETED":
        fields.update(value=values[-1], best=min(values), metrics={METRIC: values[-1]})
    if state == "FAILED":
        fields["error"] = "ValueError: diverged"
    store.update_trial(experiment_id, trial_id, **fields)


def write_sample_store(path: Path) -> SampleStore:
    """A finished search (6 completed trials, 1 failed) and a running one (2 done, 2 running)."""
    with Store(path) as store:
        spec = {"metric": METRIC, "mode": "min", "strategy": "random"}
        done = store.create_experiment(
            FINISHED, spec, metric=METRIC, mode="min", strategy="random", budget=7, parallel=2
        )
        for trial_id in range(6):
            _write_trial(store, done.id, trial_id, STEPS, "COMPLETED")
        _write_trial(store, done.id, 6, 2, "FAILED")
        store.update_experiment(done.id, state="COMPLETED", message="budget reached")

        live = store.create_experiment(
            RUNNING, spec, metric=METRIC, mode="min", strategy="tpe", budget=10, parallel=2
        )
        # a driver that beats for the next hour: the search reads as RUNNING from any process
        store.update_experiment(live.id, state="RUNNING", heartbeat=time.time() + 3600)
        for trial_id in range(2):
            _write_trial(store, live.id, trial_id, STEPS, "COMPLETED")
        for trial_id in range(2, 4):
            _write_trial(store, live.id, trial_id, 2, "RUNNING")
    return SampleStore(path, FINISHED, RUNNING, finished_trials=6, failed_trials=1, running_trials=2)


def start_search(path: Path, client: Any, name: str, trials: int, steps: int, pause: float) -> Any:
    """A real search into the store at ``path``: trials report ``steps`` losses, ``pause`` s apart."""
    import hpnb

    return hpnb.search(
        partial(objectives.slow_curve, steps=steps, pause=pause),
        name=name,
        store=path,
        client=client,
        metric=METRIC,
        mode="min",
        strategy="random",
        trials=trials,
        parallel=2,
        seed=0,
        parameters={"lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1}, "layers": [1, 2, 3]},
    )
