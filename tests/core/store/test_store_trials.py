from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from hpnb.core.store import ExperimentRecord, ResultRow, Store, StoreError, UnknownTrial
from hpnb.core.trial import TrialState


def test_add_trial_then_read_defaults(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {"lr": 0.01, "optimizer": "adam"})
    store.add_trial(exp.id, 1, {"lr": 0.02}, parent=0, state=TrialState.RUNNING)
    first, second = store.trials(exp.id)
    assert first.experiment_id == exp.id and first.trial_id == 0
    assert first.params == {"lr": 0.01, "optimizer": "adam"}
    assert first.state == "PENDING"
    assert (first.start, first.end, first.worker, first.error, first.parent) == (None, None, None, None, None)
    assert (first.retries, first.last_step, first.value, first.best) == (0, None, None, None)
    assert (first.metrics, first.checkpoint, first.checkpoint_step, first.stop_reason) == (
        {},
        None,
        None,
        None,
    )
    assert (second.parent, second.state) == (0, "RUNNING")
    assert store.trial(exp.id, 1) == second


def test_add_trial_refuses_duplicates_and_unknown_experiments(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    with pytest.raises(StoreError, match="trial 0 already exists"):
        store.add_trial(exp.id, 0, {"lr": 1})
    with pytest.raises(StoreError, match="experiment id 999 or its trial does not exist"):
        store.add_trial(999, 0, {})
    with pytest.raises(StoreError, match="state: 'DONE' is not allowed; allowed: PENDING, RUNNING"):
        store.add_trial(exp.id, 1, {}, state="DONE")
    with pytest.raises(StoreError, match="params: must be a dict"):
        store.add_trial(exp.id, 1, [0.1])  # type: ignore[arg-type]
    assert [t.trial_id for t in store.trials(exp.id)] == [0]


def test_update_trial_every_field(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 3, {"lr": 0.1})
    store.update_trial(
        exp.id, 3, params={"lr": 0.2}, state="FAILED", start=100.0, end=112.5, worker="tcp://w1:4000",
        error="Traceback ...\nValueError: bad", retries=2, parent=1, last_step=9, value=0.25, best=0.2,
        metrics={"val_loss": 0.25, "acc": 0.9}, checkpoint="mem://3", checkpoint_step=9, stop_reason="asha",
    )  # fmt: skip
    trial = store.trial(exp.id, 3)
    assert trial.params == {"lr": 0.2}
    assert (trial.state, trial.start, trial.end, trial.worker) == ("FAILED", 100.0, 112.5, "tcp://w1:4000")
    assert (trial.error, trial.retries, trial.parent) == ("Traceback ...\nValueError: bad", 2, 1)
    assert (trial.last_step, trial.value, trial.best) == (9, 0.25, 0.2)
    assert trial.metrics == {"val_loss": 0.25, "acc": 0.9}
    assert (trial.checkpoint, trial.checkpoint_step, trial.stop_reason) == ("mem://3", 9, "asha")


def test_update_trial_validates_field_names_and_values(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    before = store.trial(exp.id, 0)
    with pytest.raises(StoreError, match=r"unknown field\(s\) 'state = state; --'.*allowed: params, state"):
        store.update_trial(exp.id, 0, **{"state = state; --": "x"})
    with pytest.raises(StoreError, match="unknown field"):
        store.update_trial(exp.id, 0, experiment=5)
    with pytest.raises(StoreError, match="value: must be a number or None"):
        store.update_trial(exp.id, 0, value="low")
    with pytest.raises(StoreError, match="retries: must be an integer >= 0"):
        store.update_trial(exp.id, 0, retries=-1)
    with pytest.raises(StoreError, match="last_step: must be an integer"):
        store.update_trial(exp.id, 0, last_step=1.5)
    with pytest.raises(StoreError, match="metrics: must be a dict"):
        store.update_trial(exp.id, 0, metrics=None)
    with pytest.raises(UnknownTrial, match="no trial 7 in experiment id"):
        store.update_trial(exp.id, 7, state="RUNNING")
    with pytest.raises(UnknownTrial, match="no trial 7"):
        store.trial(exp.id, 7)
    assert store.trial(exp.id, 0) == before


def test_non_finite_values(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {"lr": math.inf})
    store.update_trial(
        exp.id, 0, value=math.nan, best=-math.inf, metrics={"loss": math.nan, "gain": math.inf}
    )
    trial = store.trial(exp.id, 0)
    assert trial.params == {"lr": math.inf}
    assert trial.value is None  # NaN in a numeric column reads back as "no value"
    assert trial.best == -math.inf
    assert math.isnan(trial.metrics["loss"]) and trial.metrics["gain"] == math.inf


def test_numpy_values_are_stored_as_plain_numbers(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    np = pytest.importorskip("numpy")
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {"layers": np.int64(3), "lr": np.float32(0.5), "sizes": np.array([1, 2])})
    store.update_trial(exp.id, 0, value=np.float64(0.25), last_step=np.int64(4))
    trial = store.trial(exp.id, 0)
    assert trial.params == {"layers": 3, "lr": 0.5, "sizes": [1, 2]}
    assert (trial.value, trial.last_step) == (0.25, 4)


def test_set_checkpoint(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    store.set_checkpoint(exp.id, 0, 4, "dask://ckpt-0-4")
    store.set_checkpoint(exp.id, 0, None, "file:///tmp/ckpt-0")
    trial = store.trial(exp.id, 0)
    assert (trial.checkpoint, trial.checkpoint_step) == ("file:///tmp/ckpt-0", None)
    with pytest.raises(StoreError, match="checkpoint reference: must be a non-empty string"):
        store.set_checkpoint(exp.id, 0, 1, "")
    with pytest.raises(UnknownTrial):
        store.set_checkpoint(exp.id, 9, 1, "x")


def test_events_in_order(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_event(exp.id, "extended", {"by": 10, "budget": 20})
    store.add_event(exp.id, "parallel_changed", {"parallel": 3})
    events = store.events(exp.id)
    assert [(e["kind"], e["data"]) for e in events] == [
        ("extended", {"by": 10, "budget": 20}),
        ("parallel_changed", {"parallel": 3}),
    ]
    assert events[0]["time"] <= events[1]["time"] and events[0]["id"] < events[1]["id"]
    with pytest.raises(StoreError, match="event kind: must be a non-empty string"):
        store.add_event(exp.id, "", {})
    with pytest.raises(StoreError, match="experiment id 999"):
        store.add_event(999, "x", {})


def _rows(trial_id: int, seqs: range) -> list[ResultRow]:
    return [
        ResultRow(trial_id, seq, seq - 1, 1000.0 + seq, 1.0 / seq, {"val_loss": 1.0 / seq, "acc": seq / 100})
        for seq in seqs
    ]


def test_add_results_exactly_once(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    store.add_trial(exp.id, 1, {})
    assert store.add_results(exp.id, _rows(0, range(1, 6))) == 5
    # a retried batch overlapping the stored rows, with duplicates inside itself too
    retried = _rows(0, range(3, 9)) + _rows(0, range(7, 9)) + _rows(1, range(1, 3))
    assert store.add_results(exp.id, retried) == 3 + 2
    assert store.add_results(exp.id, retried) == 0
    assert store.add_results(exp.id, []) == 0
    assert store.result_count(exp.id) == 10
    assert store.last_seq(exp.id) == {0: 8, 1: 2}
    assert store.results(exp.id, trial_id=0) == _rows(0, range(1, 9))


def test_first_stored_result_wins(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {"val_loss": 0.5})])
    store.add_results(exp.id, [ResultRow(0, 1, 0, 2.0, 0.9, {"val_loss": 0.9})])
    assert store.results(exp.id) == [ResultRow(0, 1, 0, 1.0, 0.5, {"val_loss": 0.5})]


def test_add_results_is_one_transaction(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    with pytest.raises(StoreError, match="does not exist"):
        store.add_results(exp.id, _rows(0, range(1, 4)) + _rows(5, range(1, 2)))  # trial 5 was never added
    with pytest.raises(StoreError, match="seq: must be an integer >= 1"):
        store.add_results(exp.id, [ResultRow(0, 0, 0, 1.0, 0.1, {})])
    with pytest.raises(StoreError, match="time: must be a number"):
        store.add_results(exp.id, [ResultRow(0, 1, 0, None, 0.1, {})])  # type: ignore[arg-type]
    assert store.result_count(exp.id) == 0


def test_result_values(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    rows = [ResultRow(0, 1, None, 5.5, None, {}), ResultRow(0, 2, 3, 6.0, math.nan, {"loss": math.nan})]
    store.add_results(exp.id, rows)
    first, second = store.results(exp.id)
    assert first == ResultRow(0, 1, None, 5.5, None, {})
    assert (second.step, second.time, second.value) == (3, 6.0, None)
    assert math.isnan(second.metrics["loss"])


def test_results_paging(store: Store, new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    for trial_id in (2, 0, 1):
        store.add_trial(exp.id, trial_id, {})
    for trial_id in (2, 0, 1):
        store.add_results(exp.id, _rows(trial_id, range(1, 11)))
    everything = store.results(exp.id)
    assert [(r.trial_id, r.seq) for r in everything] == [(t, s) for t in (0, 1, 2) for s in range(1, 11)]
    pages, after = [], 0
    while page := store.results(exp.id, trial_id=1, after=after, limit=4):
        pages.append([r.seq for r in page])
        after = page[-1].seq
    assert pages == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    assert [(r.trial_id, r.seq) for r in store.results(exp.id, after=8, limit=3)] == [(0, 9), (0, 10), (1, 9)]
    assert store.results(exp.id, limit=0) == []
    assert store.results(exp.id, trial_id=7) == []


def test_results_of_several_trials_at_once(store: Store,
                                           new_experiment: Callable[..., ExperimentRecord]) -> None:
    exp = new_experiment(store)
    for trial_id in range(4):
        store.add_trial(exp.id, trial_id, {})
        store.add_results(exp.id, _rows(trial_id, range(1, 4)))
    picked = store.results(exp.id, trial_ids=[3, 1, 9])  # a trial without results is no error
    assert [(r.trial_id, r.seq) for r in picked] == [(1, 1), (1, 2), (1, 3), (3, 1), (3, 2), (3, 3)]
    assert store.results(exp.id, trial_ids=[]) == []
    with pytest.raises(StoreError, match="trial_ids"):
        store.results(exp.id, trial_ids=["1) OR (1=1"])  # type: ignore[list-item]


def test_results_since_follows_new_rows_in_arrival_order(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    other = new_experiment(store, "other")
    for e in (exp, other):
        store.add_trial(e.id, 0, {})
        store.add_trial(e.id, 1, {})
    store.add_results(exp.id, _rows(1, range(1, 4)))
    store.add_results(other.id, _rows(0, range(1, 4)))
    store.add_results(exp.id, _rows(0, range(1, 3)))
    rows, cursor = store.results_since(exp.id, limit=4)
    assert [(r.trial_id, r.seq) for r in rows] == [(1, 1), (1, 2), (1, 3), (0, 1)]
    rows, cursor = store.results_since(exp.id, cursor)
    assert [(r.trial_id, r.seq) for r in rows] == [(0, 2)]
    assert store.results_since(exp.id, cursor) == ([], cursor)
    store.add_results(exp.id, _rows(1, range(3, 5)))  # seq 3 is a duplicate and is not new
    rows, _ = store.results_since(exp.id, cursor)
    assert [(r.trial_id, r.seq) for r in rows] == [(1, 4)]


def test_results_of_other_experiments_stay_apart(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    first = new_experiment(store, "first")
    second = new_experiment(store, "second")
    for exp in (first, second):
        store.add_trial(exp.id, 0, {})
    store.add_results(first.id, _rows(0, range(1, 4)))
    store.add_results(second.id, _rows(0, range(1, 3)))
    assert (store.result_count(first.id), store.result_count(second.id)) == (3, 2)
    assert store.last_seq(second.id) == {0: 2}
    assert store.last_seq(12345) == {}


def test_five_thousand_results_in_one_call(
    store: Store, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    exp = new_experiment(store)
    store.add_trial(exp.id, 0, {})
    assert store.add_results(exp.id, _rows(0, range(1, 5001))) == 5000
    assert store.result_count(exp.id) == 5000
    assert store.results(exp.id, after=4998) == _rows(0, range(4999, 5001))
