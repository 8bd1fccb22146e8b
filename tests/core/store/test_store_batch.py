"""One transaction for many writes: Store.batch."""

from __future__ import annotations

import pytest

from hpnb.core.store import ResultRow, Store


def test_a_batch_commits_every_write_at_once(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    exp = store.create_experiment("b", {}, metric="loss", mode="min", strategy="random", budget=3, parallel=1)
    reader = Store(tmp_path / "s.sqlite", readonly=True)
    with store.batch():
        store.add_trial(exp.id, 0, {"x": 1})
        store.add_results(exp.id, [ResultRow(0, 1, 0, 1.0, 0.5, {"loss": 0.5})])
        store.update_trial(exp.id, 0, state="COMPLETED", value=0.5)
        assert reader.trials(exp.id) == []  # nothing visible before the block ends
    trial = reader.trials(exp.id)[0]
    assert trial.state == "COMPLETED" and reader.result_count(exp.id) == 1


def test_a_failing_batch_writes_nothing(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    exp = store.create_experiment("b", {}, metric="loss", mode="min", strategy="random", budget=3, parallel=1)
    with pytest.raises(RuntimeError), store.batch():
        store.add_trial(exp.id, 0, {"x": 1})
        raise RuntimeError("boom")
    assert store.trials(exp.id) == []
    store.add_trial(exp.id, 0, {"x": 2})  # the store is usable again
    assert store.trials(exp.id)[0].params == {"x": 2}


def test_a_read_only_store_refuses_a_batch(tmp_path):
    Store(tmp_path / "s.sqlite").close()
    with pytest.raises(Exception, match="read-only"), Store(tmp_path / "s.sqlite", readonly=True).batch():
        pass
