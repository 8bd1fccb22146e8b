from __future__ import annotations

import math
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest

from hpnb.core.frames import (
    error_summary,
    experiments_frame,
    experiments_table,
    history_frame,
    leaderboard,
    results_frame,
)
from hpnb.core.store import ExperimentRecord, ResultRow, Store, current_owner
from hpnb.core.summary import best_trial, store_summaries

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 3, in train\n'
    '    raise ValueError("lr")\n'
    "ValueError: lr\n"
)


def _utc(seconds: float) -> pd.Timestamp:
    return pd.Timestamp(seconds, unit="s", tz="UTC")


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Store, ExperimentRecord]]:
    store = Store(tmp_path / "hpnb.sqlite")
    spec = {"parameters": {"lr": {"min": 0.001, "max": 0.1}, "value": [1, 2], "optimizer": ["sgd", "adam"]}}
    exp = store.create_experiment(
        "exp", spec, metric="loss", mode="min", strategy="grid", budget=4, parallel=2
    )
    store.add_trial(exp.id, 2, {"lr": 0.01, "value": 2, "optimizer": "adam"})
    store.add_trial(exp.id, 0, {"lr": 0.1, "value": 1, "optimizer": "sgd"})
    store.add_trial(exp.id, 1, {"lr": 0.05, "value": 1, "optimizer": "sgd", "extra": True}, parent=0)
    store.add_trial(exp.id, 3, {"lr": 0.02, "value": 2, "optimizer": "adam"})
    store.update_trial(
        exp.id, 0, state="COMPLETED", start=1000.0, end=1010.5, worker="w1", value=0.5, best=0.4, last_step=9
    )
    store.update_trial(
        exp.id, 1, state="FAILED", start=1001.0, end=1002.0, worker="w2", error=TRACEBACK, retries=2
    )
    store.update_trial(
        exp.id, 2, state="COMPLETED", start=1002.0, end=1004.0, worker="w1", value=0.2, best=0.2, last_step=9
    )
    store.update_trial(exp.id, 3, state="RUNNING", start=1003.0, worker="w2", value=0.5, last_step=4)
    yield store, exp
    store.close()


def test_results_frame_one_row_per_trial(stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    frame = results_frame(exp, store.trials(exp.id))
    assert list(frame.columns) == [
        "trial_id", "state", "lr", "param_value", "optimizer", "extra", "value", "best", "steps",
        "start", "end", "duration", "worker", "error", "retries", "parent",
    ]  # fmt: skip
    assert frame["trial_id"].tolist() == [0, 1, 2, 3]
    assert frame["state"].tolist() == ["COMPLETED", "FAILED", "COMPLETED", "RUNNING"]
    assert frame["lr"].tolist() == [0.1, 0.05, 0.01, 0.02]
    assert frame["param_value"].tolist() == [1, 1, 2, 2]
    assert frame["optimizer"].tolist() == ["sgd", "sgd", "adam", "adam"]
    assert frame["extra"].tolist() == [None, True, None, None]
    assert frame["value"].tolist()[0] == 0.5 and math.isnan(frame["value"][1]) and frame["value"][2] == 0.2
    assert frame["best"].tolist()[:1] == [0.4] and math.isnan(frame["best"][3])
    assert frame["steps"].tolist() == [9, pd.NA, 9, 4]
    assert frame["start"].tolist() == [_utc(1000.0), _utc(1001.0), _utc(1002.0), _utc(1003.0)]
    assert frame["end"][0] == _utc(1010.5) and pd.isna(frame["end"][3])
    assert frame["duration"].tolist()[:3] == [10.5, 1.0, 2.0] and math.isnan(frame["duration"][3])
    assert frame["worker"].tolist() == ["w1", "w2", "w1", "w2"]
    assert frame["error"].tolist() == [None, "ValueError: lr", None, None]
    assert frame["retries"].tolist() == [0, 2, 0, 0]
    assert frame["parent"].tolist() == [pd.NA, 0, pd.NA, pd.NA]
    assert frame["lr"].dtype == "float64" and frame["trial_id"].dtype == "int64"


def test_results_frame_of_no_trials_has_the_columns(stored: tuple[Store, ExperimentRecord]) -> None:
    _, exp = stored
    frame = results_frame(exp, [])
    assert len(frame) == 0
    assert list(frame.columns)[:5] == ["trial_id", "state", "lr", "param_value", "optimizer"]


def test_katib_style_parameter_list_sets_column_order(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        spec = {
            "parameters": [{"name": "b", "parameterType": "int"}, {"name": "a", "parameterType": "double"}]
        }
        exp = store.create_experiment(
            "k", spec, metric="m", mode="max", strategy="random", budget=1, parallel=1
        )
        store.add_trial(exp.id, 0, {"a": 0.5, "b": 3})
        assert list(results_frame(exp, store.trials(exp.id)).columns)[:4] == ["trial_id", "state", "b", "a"]


def test_leaderboard_is_mode_aware_with_missing_values_last(stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    trials = store.trials(exp.id)
    board = leaderboard(exp, trials)
    assert board["trial_id"].tolist() == [2, 0, 3, 1]  # 0.2, then the 0.5 tie by trial id, then NaN
    assert board.index.tolist() == [0, 1, 2, 3]
    assert leaderboard(exp, trials, top=2)["trial_id"].tolist() == [2, 0]
    store.update_experiment(exp.id, state="COMPLETED")
    maximizing = store.create_experiment(
        "max", exp.spec, metric="acc", mode="max", strategy="grid", budget=4, parallel=2
    )
    for trial in trials:
        store.add_trial(maximizing.id, trial.trial_id, trial.params)
        store.update_trial(maximizing.id, trial.trial_id, value=trial.value)
    assert leaderboard(maximizing, store.trials(maximizing.id))["trial_id"].tolist() == [0, 3, 2, 1]


def test_best_trial(stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    trials = store.trials(exp.id)
    best = best_trial(trials, exp.mode)
    assert best is not None and best.trial_id == 2
    best_max = best_trial(trials, "max")
    assert best_max is not None and best_max.trial_id == 0
    assert best_trial([t for t in trials if t.value is None], exp.mode) is None
    assert best_trial([], exp.mode) is None


def test_history_frame_long_format(stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    store.add_results(
        exp.id,
        [
            ResultRow(2, 1, 0, 1002.5, 0.9, {"loss": 0.9, "acc": 0.1}),
            ResultRow(0, 2, 1, 1001.0, 0.7, {"loss": 0.7, "step": 5}),
            ResultRow(0, 1, None, 1000.5, None, {"acc": 0.2}),
        ],
    )
    frame = history_frame(store.results(exp.id))
    assert list(frame.columns) == ["trial_id", "seq", "step", "time", "value", "acc", "loss", "metric_step"]
    assert frame["trial_id"].tolist() == [0, 0, 2]
    assert frame["seq"].tolist() == [1, 2, 1]
    assert frame["step"].tolist() == [pd.NA, 1, 0]
    assert frame["time"].tolist() == [_utc(1000.5), _utc(1001.0), _utc(1002.5)]
    assert math.isnan(frame["value"][0]) and frame["value"].tolist()[1:] == [0.7, 0.9]
    assert frame["acc"].tolist()[0] == 0.2 and math.isnan(frame["acc"][1]) and frame["acc"][2] == 0.1
    assert math.isnan(frame["loss"][0]) and frame["loss"].tolist()[1:] == [0.7, 0.9]
    assert frame["metric_step"].tolist()[1] == 5


def test_history_frame_of_nothing() -> None:
    frame = history_frame([])
    assert list(frame.columns) == ["trial_id", "seq", "step", "time", "value"] and len(frame) == 0


def test_experiments_frame(stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    other = store.create_experiment(
        "fresh", {}, metric="m", mode="max", strategy="tpe", budget=8, parallel=None
    )
    frame = experiments_frame(store_summaries(store, time.time()))
    assert frame.to_dict("list") == {
        "name": ["fresh", "exp"],
        "owner": [current_owner()] * 2,
        "state": ["CREATED", "CREATED"],
        "strategy": ["tpe", "grid"],
        "progress": ["0/8", "3/4"],
        "best": [pytest.approx(math.nan, nan_ok=True), 0.2],
        "created": [_utc(other.created), _utc(exp.created)],
    }


def test_experiments_table_shows_when_each_search_was_created_as_people_write_it(
        stored: tuple[Store, ExperimentRecord]) -> None:
    store, exp = stored
    summaries = store_summaries(store, time.time())
    today = datetime.fromtimestamp(exp.created).astimezone().strftime("%H:%M")
    assert experiments_table(summaries, now=exp.created + 60)["created"].tolist() == [today]
    older = experiments_table(summaries, now=exp.created + 3 * 86400)["created"].tolist()
    assert older == [datetime.fromtimestamp(exp.created).astimezone().strftime("%b %-d %H:%M")]
    assert experiments_frame(summaries)["created"].tolist() == [_utc(exp.created)]  # for machines: as it was


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        (None, None),
        ("", None),
        ("\n\n", None),
        (TRACEBACK, "ValueError: lr"),
        ("worker died\nmore detail", "worker died"),
        ("  \nKilledWorker: w3", "KilledWorker: w3"),
    ],
)
def test_error_summary(text: str | None, summary: str | None) -> None:
    assert error_summary(text) == summary
