"""Helpers shared by the store tests."""

from __future__ import annotations

from typing import Any

from hpnb.core.store import ExperimentRecord, Store


def new_experiment(store: Store, name: str = "mlp-lr", **overrides: Any) -> ExperimentRecord:
    options: dict[str, Any] = {
        "metric": "val_loss",
        "mode": "min",
        "strategy": "random",
        "budget": 10,
        "parallel": 2,
    }
    options.update(overrides)
    spec = options.pop(
        "spec", {"metric": options["metric"], "parameters": {"lr": {"min": 0.001, "max": 0.1}}}
    )
    return store.create_experiment(name, spec, **options)
