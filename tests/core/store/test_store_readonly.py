from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from hpnb.core.store import ExperimentRecord, ReadOnlyStore, ResultRow, Store, UnknownExperiment


def test_missing_file_reads_as_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "hpnb.sqlite"
    with Store(path, readonly=True) as store:
        assert store.experiments() == []
        assert store.find_experiment("x") is None
        assert store.trials(1) == [] and store.results(1) == [] and store.events(1) == []
        assert store.last_seq(1) == {} and store.result_count(1) == 0
        assert store.results_since(1, 5) == ([], 5)
        with pytest.raises(UnknownExperiment, match="has no experiments yet"):
            store.experiment("x")
        with pytest.raises(UnknownExperiment):
            store.request_stop("x")
    assert not path.parent.exists()  # reading created nothing


def test_readonly_store_sees_a_file_created_later(
    tmp_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    path = tmp_path / "hpnb.sqlite"
    with Store(path, readonly=True) as reader:
        assert reader.experiments() == []
        with Store(path) as writer:
            new_experiment(writer, "late")
        assert [e.name for e in reader.experiments()] == ["late"]


def test_readonly_store_sees_new_writes(
    store: Store, store_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    with Store(store_path, readonly=True) as reader:
        assert reader.result_count(exp.id) == 0
        store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {})])
        assert reader.result_count(exp.id) == 1


def test_readonly_connection_cannot_write_even_through_sql(
    store: Store, store_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    new_experiment(store)
    with Store(store_path, readonly=True) as reader:
        reader.experiments()
        conn = reader._conn
        assert conn is not None
        with pytest.raises((sqlite3.OperationalError, _server_refusal()), match=r"readonly|read-only"):
            conn.execute("DELETE FROM experiments")
    assert [e.name for e in store.experiments()] == ["mlp-lr"]


def test_request_stop_is_the_one_write_a_readonly_store_makes(
    store: Store, store_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    with Store(store_path, readonly=True) as reader:
        reader.request_stop("mlp-lr")
        assert reader.experiment("mlp-lr").stop_requested is True
        with pytest.raises(UnknownExperiment, match="did you mean 'mlp-lr'"):
            reader.request_stop("mlp_lr")
        with pytest.raises(ReadOnlyStore):
            reader.clear_stop(exp.id)
    assert store.experiment("mlp-lr").stop_requested is True


def _server_refusal() -> type[Exception]:
    from psycopg.errors import ReadOnlySqlTransaction

    return ReadOnlySqlTransaction
