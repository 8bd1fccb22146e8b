from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hpnb.core.store import ExperimentRecord, Store

NewExperiment = Callable[..., ExperimentRecord]


def _new_experiment(store: Store, name: str = "mlp-lr", **overrides: Any) -> ExperimentRecord:
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


@pytest.fixture
def new_experiment() -> NewExperiment:
    """``new_experiment(store, name="mlp-lr", **create_experiment_overrides)``."""
    return _new_experiment


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "hpnb.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[Store]:
    with Store(store_path) as opened:
        yield opened
