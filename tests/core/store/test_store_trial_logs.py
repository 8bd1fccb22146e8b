"""What trials printed, in the store: kept per trial, bounded, readable, migrated into old files."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from hpnb.core.store import Store, UnknownTrial
from hpnb.core.trial_log import read_trial_log
from hpnb.core.trial_output import MAX_BYTES, MAX_LINES, TrialOutput
from tests.core.store.conftest import NewExperiment
from tests.core.store.test_store_schema import _write_version_1


def stored_bytes(path: Path) -> int:
    """The store's size as SQLite sees it: the main file and its write-ahead log."""
    with closing(sqlite3.connect(path)) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        return int(pages * conn.execute("PRAGMA page_size").fetchone()[0])


def _store_with_trials(store: Store, new_experiment: NewExperiment, ids: range = range(3)):
    exp = new_experiment(store)
    for trial_id in ids:
        store.add_trial(exp.id, trial_id, {"lr": 0.01})
    return exp


def test_output_is_kept_per_trial_with_its_worker_and_peak_memory(store, new_experiment) -> None:
    exp = _store_with_trials(store, new_experiment)
    store.update_trial(exp.id, 1, state="FAILED", error="Traceback (most recent call last):\nValueError: x")
    store.set_trial_output(exp.id, 1, TrialOutput(stdout="epoch 0\nepoch 1\n", stderr="WARNING careful\n",
                                                  stdout_bytes=16, stderr_bytes=16, worker="tcp://w:1",
                                                  peak_memory_bytes=123_456_789))
    log = read_trial_log(store, exp, 1, time.time())
    assert (log.trial_id, log.state, log.stdout, log.stderr) == (1, "FAILED", "epoch 0\nepoch 1\n",
                                                                  "WARNING careful\n")
    assert log.traceback.endswith("ValueError: x")
    assert (log.worker, log.peak_memory_bytes) == ("tcp://w:1", 123_456_789)
    assert (log.truncated, log.note) == (False, None)
    assert read_trial_log(store, exp, 0, time.time()).stdout == ""


def test_a_store_keeps_at_most_the_limits_whatever_it_is_handed(store, new_experiment) -> None:
    exp = _store_with_trials(store, new_experiment)
    many_lines = "".join(f"line {i}\n" for i in range(5000))
    one_huge_line = "x" * (20 * 2**20)
    handed = TrialOutput(stdout=many_lines, stderr=one_huge_line, stdout_bytes=len(many_lines),
                         stderr_bytes=len(one_huge_line))
    store.set_trial_output(exp.id, 0, handed)
    log = read_trial_log(store, exp, 0, time.time())
    assert log.stdout.splitlines() == [f"line {i}" for i in range(5000 - MAX_LINES, 5000)]
    assert log.stderr == "x" * MAX_BYTES
    assert log.truncated and log.stderr_bytes == 20 * 2**20
    if not store.location.is_server:  # what the file holds
        assert stored_bytes(store.path) < 2 * 2**20


def test_binary_garbage_is_kept_readable(store, new_experiment) -> None:
    exp = _store_with_trials(store, new_experiment)
    garbage = bytes(range(256)).decode("utf-8", "surrogateescape") + "\x1b[31mred\x1b[0m\n"
    store.set_trial_output(exp.id, 0, TrialOutput(stdout=garbage))
    text = read_trial_log(store, exp, 0, time.time()).stdout
    assert text.endswith("red\n")
    assert "\ufffd" in text and "\x1b" not in text and "\x00" not in text
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in text)
    text.encode("utf-8")  # shown anywhere without an error


def test_a_later_attempt_wins_over_an_earlier_one_arriving_late(store, new_experiment) -> None:
    exp = _store_with_trials(store, new_experiment)
    store.set_trial_output(exp.id, 2, TrialOutput(attempt=1, stdout="retry\n"))
    store.set_trial_output(exp.id, 2, TrialOutput(attempt=0, stdout="first, late\n"))
    log = read_trial_log(store, exp, 2, time.time())
    assert (log.attempt, log.stdout) == (1, "retry\n")


@pytest.mark.parametrize("asked", [7, -1, "3"])
def test_an_unknown_trial_is_named_with_the_ids_the_search_has(store, new_experiment, asked) -> None:
    exp = _store_with_trials(store, new_experiment)
    with pytest.raises(UnknownTrial, match=rf"search 'mlp-lr' has no trial {asked!r}; its trials are 0 to 2"):
        read_trial_log(store, exp, asked, time.time())


def test_a_search_without_trials_says_so(store, new_experiment) -> None:
    exp = new_experiment(store)
    with pytest.raises(UnknownTrial, match="has no trial 0; it has no trials yet"):
        read_trial_log(store, exp, 0, time.time())


def test_a_trial_without_kept_output_says_why(store, new_experiment) -> None:
    exp = _store_with_trials(store, new_experiment)
    assert read_trial_log(store, exp, 0, time.time()).note == "output is kept when the trial ends"
    store.update_trial(exp.id, 0, state="COMPLETED")
    assert "no output was kept" in (read_trial_log(store, exp, 0, time.time()).note or "")


def test_an_old_file_gains_the_table_and_deleting_a_search_deletes_its_logs(sqlite_path: Path) -> None:
    _write_version_1(sqlite_path)
    with Store(sqlite_path) as store:
        old = store.experiment("old-search")
        assert read_trial_log(store, old, 0, time.time()).state == "COMPLETED"
        store.set_trial_output(old.id, 0, TrialOutput(stdout="hello\n"))
        assert read_trial_log(store, old, 0, time.time()).stdout == "hello\n"
        store.delete_experiment("old-search")
    conn = sqlite3.connect(sqlite_path)
    try:
        assert conn.execute("SELECT COUNT(*) FROM trial_logs").fetchone()[0] == 0
    finally:
        conn.close()
