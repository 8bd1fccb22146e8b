from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hpnb.core.store import ExperimentRecord, ResultRow, Store, StoreBusy

TRIALS, ROWS_PER_TRIAL, BATCH = 4, 750, 25

WRITER = textwrap.dedent(
    """
    import sys
    from hpnb.core.store import ResultRow, Store
    path, name, trials, rows, batch = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    with Store(path) as store:
        exp = store.create_experiment(name, {}, metric="loss", mode="min", strategy="random",
                                      budget=trials, parallel=trials)
        store.update_experiment(exp.id, state="RUNNING", driver=name)
        for t in range(trials):
            store.add_trial(exp.id, t, {"t": t}, state="RUNNING")
        for start in range(1, rows + 1, batch):
            for t in range(trials):
                seqs = range(start, min(start + batch, rows + 1))
                rows_ = [ResultRow(t, s, s, float(s), 1.0 / s, {"loss": 1.0 / s}) for s in seqs]
                store.add_results(exp.id, rows_)
                store.update_trial(exp.id, t, last_step=seqs[-1])
        for t in range(trials):
            store.update_trial(exp.id, t, state="COMPLETED", value=1.0 / rows)
        store.update_experiment(exp.id, state="COMPLETED")
    """
)

READER = textwrap.dedent(
    """
    import json, sys, time
    from hpnb.core.store import Store
    path, seconds = sys.argv[1], float(sys.argv[2])
    reads, seen = 0, 0
    with Store(path, readonly=True) as store:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for exp in store.experiments():
                seen = max(seen, store.result_count(exp.id))
                store.results(exp.id, limit=200)
                store.trials(exp.id)
                store.last_seq(exp.id)
            reads += 1
            states = [e.state for e in store.experiments()]
            if reads > 5 and states == ["COMPLETED", "COMPLETED"]:
                break
    print(json.dumps({"reads": reads, "seen": seen}))
    """
)


@pytest.mark.timeout(240)
def test_two_writer_processes_and_a_reader_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "hpnb.sqlite"
    args = [str(TRIALS), str(ROWS_PER_TRIAL), str(BATCH)]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), "180"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("search-a", "search-b")
    ]
    for process in [*writers, reader]:
        out, err = process.communicate(timeout=200)
        assert process.returncode == 0, err
        assert "locked" not in err
    report = json.loads(out)
    assert report["reads"] > 0

    with Store(path, readonly=True) as store:
        assert sorted(e.name for e in store.experiments()) == ["search-a", "search-b"]
        for exp in store.experiments():
            assert exp.state == "COMPLETED"
            assert store.result_count(exp.id) == TRIALS * ROWS_PER_TRIAL
            assert store.last_seq(exp.id) == dict.fromkeys(range(TRIALS), ROWS_PER_TRIAL)
            rows = store.results(exp.id, trial_id=2)
            assert [r.seq for r in rows] == list(range(1, ROWS_PER_TRIAL + 1))
            assert rows[9] == ResultRow(2, 10, 10, 10.0, 0.1, {"loss": 0.1})
            assert [t.last_step for t in store.trials(exp.id)] == [ROWS_PER_TRIAL] * TRIALS


def _hold_write_lock(path: Path | str, seconds: float, locked: threading.Event,
                     release: threading.Event | None = None) -> None:
    """Hold the write lock (a batch of another connection) for ``seconds``, or until ``release`` is set."""
    with Store(path) as holder, holder.batch():
        locked.set()
        (release or threading.Event()).wait(seconds)  # a lock held for a set time is what is under test


def test_write_waits_out_a_lock_longer_than_busy_timeout(
    sqlite_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    # SQLite has one writer at a time; a server store lets writers of other rows go on.
    with Store(sqlite_path, busy_timeout=0.05) as store:
        exp = new_experiment(store)
        locked = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(sqlite_path, 0.6, locked))
        holder.start()
        locked.wait()
        store.add_event(exp.id, "extended", {"by": 1})  # SQLite gives up after 0.05 s; the store retries
        holder.join()
        assert [e["kind"] for e in store.events(exp.id)] == ["extended"]


def test_lock_held_beyond_the_retry_period_raises_store_busy(
    sqlite_path: Path, new_experiment: Callable[..., ExperimentRecord]
) -> None:
    # SQLite has one writer at a time; a server store lets writers of other rows go on.
    with Store(sqlite_path, busy_timeout=0.02) as store:
        exp = new_experiment(store)
        store._retry_period = 0.3
        locked = threading.Event()
        release = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(sqlite_path, 120.0, locked, release))
        holder.start()
        locked.wait()
        try:
            with pytest.raises(StoreBusy, match="stayed locked by another process"):
                store.add_event(exp.id, "extended", {"by": 1})
        finally:
            release.set()
            holder.join()
        assert store.events(exp.id) == []
