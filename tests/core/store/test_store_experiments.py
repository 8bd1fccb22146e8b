from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hpnb.core.store import (
    CLEAR,
    ExperimentRecord,
    InvalidName,
    NameTaken,
    ReadOnlyStore,
    ResultRow,
    Store,
    StoreError,
    UnknownExperiment,
    default_store_path,
)


def test_default_path_follows_hpnb_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HPNB_HOME", str(tmp_path / "custom"))
    assert default_store_path() == tmp_path / "custom" / "hpnb.sqlite"
    monkeypatch.delenv("HPNB_HOME")
    assert default_store_path() == Path.home() / ".hpnb" / "hpnb.sqlite"


def test_store_without_path_uses_hpnb_home_and_creates_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    monkeypatch.setenv("HPNB_HOME", str(tmp_path / "fresh"))
    with Store() as store:
        assert store.path == tmp_path / "fresh" / "hpnb.sqlite"
        new_experiment(store)
    assert (tmp_path / "fresh" / "hpnb.sqlite").is_file()


def test_file_is_in_wal_mode(sqlite_store: Store) -> None:
    import sqlite3

    conn = sqlite3.connect(sqlite_store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_create_and_read_back_every_field(store: Store) -> None:
    before = time.time()
    spec = {"metric": "val_loss", "parameters": {"lr": {"min": 1e-5, "max": 0.1}}, "seed": 0}
    created = store.create_experiment(
        "mlp-lr", spec, source="def train(lr): ...", metric="val_loss", mode="min",
        strategy="tpe", budget=40, parallel=4,
    )  # fmt: skip
    assert created.name == "mlp-lr"
    assert created.spec == spec
    assert created.source == "def train(lr): ..."
    assert (created.metric, created.mode, created.strategy) == ("val_loss", "min", "tpe")
    assert (created.budget, created.parallel) == (40, 4)
    assert created.state == "CREATED"
    assert before <= created.created == created.updated <= time.time()
    assert created.message is None and created.driver is None
    assert created.stop_requested is False
    assert created.strategy_state is None and created.scheduler_state is None
    assert store.experiment("mlp-lr") == created
    assert store.experiment_with_id(created.id) == created


def test_experiments_are_listed_newest_first(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    for name in ("first", "second", "third"):
        new_experiment(store, name)
    assert [e.name for e in store.experiments()] == ["third", "second", "first"]


def test_name_taken_unless_overwrite(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    old = new_experiment(store, "exp", budget=5)
    store.add_trial(old.id, 0, {"lr": 0.1})
    store.add_results(old.id, [ResultRow(0, 1, 0, 1.0, 0.5, {})])
    with pytest.raises(NameTaken, match=r"'exp' already exists.*resume.*overwrite"):
        new_experiment(store, "exp")
    new = new_experiment(store, "exp", budget=7, overwrite=True)
    assert new.budget == 7
    assert new.id != old.id
    assert store.trials(new.id) == []
    assert store.trials(old.id) == [] and store.result_count(old.id) == 0
    assert [e.name for e in store.experiments()] == ["exp"]


@pytest.mark.parametrize("name", ["", "a b", "x/y", "../etc", "é", "a" * 129, "name;DROP"])
def test_invalid_names_are_refused(
    store: Store, name: str, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    with pytest.raises(InvalidName, match="1 to 128 letters, digits"):
        new_experiment(store, name)
    assert store.experiments() == []


def test_longest_valid_name(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    name = "A-z_0." + "x" * 122
    assert new_experiment(store, name).name == name


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("mode", "minimize", "mode: 'minimize' is not allowed; allowed: min, max"),
        ("budget", -1, "budget: must be an integer >= 0"),
        ("budget", 2.5, "budget: must be an integer"),
        ("parallel", 0, "parallel: must be an integer >= 1"),
        ("metric", "", "metric: must be a non-empty string"),
        ("spec", ["not", "a", "dict"], "spec: must be a dict"),
        ("spec", {"f": object()}, "spec: cannot be stored as JSON"),
    ],
)
def test_bad_experiment_fields_name_the_field(
    store: Store, field: str, value: object, message: str, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        new_experiment(store, **{field: value})


def test_unknown_experiment_suggests_a_close_name(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    new_experiment(store, "mlp-lr")
    with pytest.raises(UnknownExperiment, match=r"no experiment named 'mlp-rl'.*did you mean 'mlp-lr'"):
        store.experiment("mlp-rl")
    assert store.find_experiment("mlp-rl") is None
    with pytest.raises(UnknownExperiment, match="no experiment named 'zzz'") as caught:
        store.experiment("zzz")
    assert "did you mean" not in str(caught.value)


def test_unknown_experiment_in_empty_store(store: Store) -> None:
    with pytest.raises(UnknownExperiment, match="has no experiments yet"):
        store.experiment("anything")


def test_update_experiment_changes_only_given_fields(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.update_experiment(exp.id, state="RUNNING", driver="host:123", parallel=3)
    running = store.experiment(exp.name)
    assert (running.state, running.driver, running.parallel, running.budget) == ("RUNNING", "host:123", 3, 10)
    assert running.updated >= exp.updated
    state = {"rng": [1, 2, 3], "best": float("inf"), "nan": float("nan")}
    store.update_experiment(exp.id, strategy_state=state, scheduler_state={"rungs": {"1": [0.5]}}, budget=20)
    stored = store.experiment(exp.name)
    assert stored.strategy_state is not None
    assert stored.strategy_state["rng"] == [1, 2, 3] and stored.strategy_state["best"] == math.inf
    assert math.isnan(stored.strategy_state["nan"])
    assert stored.scheduler_state == {"rungs": {"1": [0.5]}}
    assert (stored.budget, stored.state, stored.driver) == (20, "RUNNING", "host:123")
    store.update_experiment(exp.id, state="COMPLETED", message="done", driver=CLEAR)
    done = store.experiment(exp.name)
    assert (done.state, done.message, done.driver) == ("COMPLETED", "done", None)


def test_update_experiment_refuses_bad_values(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    with pytest.raises(StoreError, match="state: 'DONE' is not allowed; allowed: CREATED, RUNNING"):
        store.update_experiment(exp.id, state="DONE")
    with pytest.raises(StoreError, match="no experiment with id 999"):
        store.update_experiment(999, state="RUNNING")
    with pytest.raises(StoreError, match="cannot be cleared"):
        store.update_experiment(exp.id, budget=CLEAR)
    assert store.experiment(exp.name) == exp


def test_stop_request_and_clear(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.request_stop(exp.name)
    assert store.experiment(exp.name).stop_requested is True
    assert [(c.kind, c.state) for c in store.pending_commands(exp.id)] == [("stop", "pending")]
    store.clear_stop(exp.id)
    assert store.experiment(exp.name).stop_requested is False
    with pytest.raises(UnknownExperiment, match="did you mean 'mlp-lr'"):
        store.request_stop("mlp-l")


def test_delete_experiment_removes_everything(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    keep = new_experiment(store, "keep")
    gone = new_experiment(store, "gone")
    for exp in (keep, gone):
        store.add_trial(exp.id, 0, {"lr": 0.1})
        store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {})])
        store.add_event(exp.id, "extended", {"by": 5})
    store.delete_experiment("gone")
    assert [e.name for e in store.experiments()] == ["keep"]
    assert store.trials(gone.id) == [] and store.result_count(gone.id) == 0 and store.events(gone.id) == []
    assert store.result_count(keep.id) == 1 and len(store.events(keep.id)) == 1
    with pytest.raises(UnknownExperiment):
        store.delete_experiment("gone")


def test_closed_store_refuses_use(store_path: Path, new_experiment: Callable[..., ExperimentRecord]) -> None:
    store = Store(store_path)
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.experiments()
    with pytest.raises(StoreError, match="is closed"):
        new_experiment(store)


def test_one_store_shared_by_threads(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    for trial_id in range(4):
        store.add_trial(exp.id, trial_id, {})
    errors: list[BaseException] = []

    def write(trial_id: int) -> None:
        try:
            for start in range(0, 500, 50):
                store.add_results(
                    exp.id, [ResultRow(trial_id, s + 1, s, 1.0, 0.1, {}) for s in range(start, start + 50)]
                )
                store.update_trial(exp.id, trial_id, last_step=start + 49)
        except BaseException as err:  # reported below
            errors.append(err)

    def read() -> None:
        try:
            for _ in range(50):
                store.results(exp.id, limit=100)
                store.trials(exp.id)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)] + [threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.result_count(exp.id) == 2000
    assert store.last_seq(exp.id) == {0: 500, 1: 500, 2: 500, 3: 500}


def test_readonly_store_refuses_writes_clearly(
    store: Store, store_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    with Store(store_path, readonly=True) as reader:
        with pytest.raises(ReadOnlyStore, match=r"cannot add a trial: the store .* was opened read-only"):
            reader.add_trial(exp.id, 0, {})
        with pytest.raises(ReadOnlyStore, match="read-only"):
            new_experiment(reader, "other")
        with pytest.raises(ReadOnlyStore):
            reader.update_experiment(exp.id, state="RUNNING")
        with pytest.raises(ReadOnlyStore):
            reader.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {})])
        with pytest.raises(ReadOnlyStore):
            reader.delete_experiment(exp.name)
        assert reader.experiment(exp.name) == exp
