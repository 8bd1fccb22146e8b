from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hpnb.core.store import ExperimentRecord, Store
from tests.postgres import TestServer

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
def sqlite_path(tmp_path: Path) -> Path:
    """A SQLite store's file (for what only a file has: damage, permissions, its folder)."""
    return tmp_path / "home" / "hpnb.sqlite"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_path(request: pytest.FixtureRequest, sqlite_path: Path) -> Path | str:
    """Where a new, empty store is, on each backend: a SQLite file, a PostgreSQL database's URL."""
    if request.param == "sqlite":
        return sqlite_path
    server: TestServer = request.getfixturevalue("postgres_server")
    return server.create_database()


@pytest.fixture
def sqlite_store(sqlite_path: Path) -> Iterator[Store]:
    """A SQLite store (for what only a file has)."""
    with Store(sqlite_path) as opened:
        yield opened


@pytest.fixture
def store(store_path: Path | str) -> Iterator[Store]:
    with Store(store_path) as opened:
        yield opened
