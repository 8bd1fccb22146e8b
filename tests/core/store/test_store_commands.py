"""The control channel in the store: commands sent from any process, answered once by the driver."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest

from hpnb.core.store import Store, StoreError
from hpnb.core.store.commands import DONE, PENDING, REFUSED

from .conftest import NewExperiment


def test_a_command_is_pending_until_answered_once(store: Store, new_experiment: NewExperiment) -> None:
    exp = new_experiment(store)
    first = store.send_command(exp.id, "stop_trial", 3, source="cli host:1")
    second = store.send_command(exp.id, "extend", 5)
    assert [(c.kind, c.value, c.state) for c in store.pending_commands(exp.id)] == [
        ("stop_trial", 3, PENDING), ("extend", 5, PENDING)]
    assert first.source == "cli host:1" and first.reply is None and first.answered is None
    store.answer_command(first.id, REFUSED, "trial 3 already finished (COMPLETED)")
    store.answer_command(first.id, DONE, "a second answer is ignored")
    answered = store.command(first.id)
    assert (answered.state, answered.reply) == (REFUSED, "trial 3 already finished (COMPLETED)")
    assert answered.answered is not None and not answered.pending
    assert [c.id for c in store.pending_commands(exp.id)] == [second.id]


def test_refusing_what_is_pending_leaves_answered_ones(store: Store, new_experiment: NewExperiment) -> None:
    exp = new_experiment(store)
    done = store.send_command(exp.id, "extend", 1)
    store.answer_command(done.id, DONE, "budget 11")
    store.send_command(exp.id, "parallel", 2)
    store.send_command(exp.id, "stop")
    assert store.refuse_pending(exp.id, "the search ended") == 2
    assert store.pending_commands(exp.id) == []
    assert store.command(done.id).state == DONE


def test_a_stop_command_raises_the_stop_flag(store: Store, new_experiment: NewExperiment) -> None:
    exp = new_experiment(store)
    store.send_command(exp.id, "stop")
    assert store.experiment(exp.name).stop_requested is True


def test_bad_commands_are_refused_with_what_is_allowed(store: Store, new_experiment: NewExperiment) -> None:
    exp = new_experiment(store)
    with pytest.raises(StoreError, match="'delete' is not allowed; allowed: stop, stop_trial"):
        store.send_command(exp.id, "delete")
    with pytest.raises(StoreError, match="no experiment with id 999"):
        store.send_command(999, "stop")
    with pytest.raises(StoreError, match="no command with id 42"):
        store.command(42)
    assert store.pending_commands(exp.id) == []


def test_a_read_only_store_sends_commands(store: Store, new_experiment: NewExperiment) -> None:
    exp = new_experiment(store)
    viewer = Store(store.url, readonly=True)
    try:
        viewer.send_command(exp.id, "pause_trial", 1, source="lab")
        assert [c.kind for c in viewer.pending_commands(exp.id)] == ["pause_trial"]
    finally:
        viewer.close()
    assert [c.kind for c in store.pending_commands(exp.id)] == ["pause_trial"]


def _send_many(path: str, experiment_id: int) -> None:
    store = Store(path)
    while True:
        store.send_command(experiment_id, "extend", 1)


def test_a_sender_killed_while_writing_sends_whole_commands(
    store: Store, new_experiment: NewExperiment, tmp_path: Path
) -> None:
    exp = new_experiment(store)
    sender = multiprocessing.get_context("spawn").Process(target=_send_many, args=(store.url, exp.id))
    sender.start()
    try:
        while len(store.pending_commands(exp.id)) < 20:
            sender.join(0.02)
    finally:
        os.kill(sender.pid or 0, signal.SIGKILL)
        sender.join()
    commands = store.pending_commands(exp.id)
    assert all(c.kind == "extend" and c.value == 1 and c.created > 0 for c in commands)
    store.send_command(exp.id, "stop")  # the file is not left locked or damaged
    assert store.pending_commands(exp.id)[-1].kind == "stop"
