"""A detached search in real kernels: it outlives the kernel that started it (killed with its
process group, as a restart or an out-of-memory kill ends it), and another kernel attaches and
steers it through the store."""

from __future__ import annotations

import os
import signal
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from tests.jupyter.kernel_session import KernelSession
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

#: data loaded in the notebook, a class and a function of the notebook: all travel with the objective
NOTEBOOK = textwrap.dedent("""\
    import time
    import numpy as np
    import hpnb

    SHIFT = np.full(100_000, 0.25)

    class Curve:
        def __init__(self, x):
            self.x = x

        def loss(self, step):
            return float((self.x - SHIFT[0]) ** 2 + 1.0 / (step + 1))

    def train(x):
        curve = Curve(x)
        for step in range(20):
            time.sleep(0.15)
            hpnb.report(step=step, loss=curve.loss(step))
        return curve.loss(20)
    """)

CELL = textwrap.dedent("""\
    %%hpsearch train --name outlives --detach
    metric: loss
    trials: 12
    seed: 0
    parameters:
      x: {min: 0.0, max: 1.0}
    resources: {workers: 2}
    """)


def _kill_with_its_group(session: KernelSession) -> None:
    """SIGKILL the kernel and every process of its group, as a restart or the OOM killer does."""
    pid = session.manager.provisioner.process.pid  # type: ignore[union-attr]
    os.killpg(os.getpgid(pid), signal.SIGKILL)
    session.client.stop_channels()


def attach_and_extend(session: KernelSession, name: str, budget: int) -> None:
    """In another kernel: ``%hpsearch attach`` shows the live dashboard with its controls, and
    ``%hpsearch extend NAME 2`` raises the budget to ``budget``."""
    session.run("%load_ext hpnb.jupyter\nimport hpnb")
    reply, _ = session.execute(f"%hpsearch attach {name}")
    assert reply["content"]["status"] == "ok"
    assert session.widget_comms("ButtonModel"), "the attached dashboard has its controls"
    answer = session.run(f"%hpsearch extend {name} 2")
    assert f"search {name!r} has a budget of {budget} trials now (+2)" in answer


def test_a_detached_search_outlives_its_kernel_and_another_kernel_steers_it(tmp_path: Path) -> None:
    first = KernelSession(tmp_path)
    first.run("%load_ext hpnb.jupyter")
    first.run(NOTEBOOK)
    reply, _ = first.execute(CELL)
    assert reply["content"]["status"] == "ok"
    store_path = tmp_path / "hpnb.sqlite"
    wait_until(lambda: first.results_stored("outlives") >= 20, timeout=180, message="the trials report")
    search = hpnb.load("outlives", store=store_path)
    driver = search.record.driver
    _kill_with_its_group(first)

    reported = first.results_stored("outlives")
    wait_until(lambda: first.results_stored("outlives") > reported + 20, timeout=120,
               message="the search goes on without the kernel that started it")
    assert search.state == "RUNNING" and search.record.driver == driver

    second = KernelSession(tmp_path)
    try:
        attach_and_extend(second, "outlives", budget=14)
        answer = second.run("%hpsearch parallel outlives 1")
        assert "runs at most 1 trial at once now" in answer
        refused = second.run("try:\n    hpnb.load('outlives').stop_trial(99)\nexcept Exception as e:\n"
                             "    print(type(e).__name__, e)")
        assert "search 'outlives' has no trial 99" in refused
    finally:
        second.close()

    assert search.wait(patience(300)).state == "COMPLETED", search.message
    trials = search.store.trials(search.experiment_id)
    assert len(trials) == 14 and {t.state for t in trials} == {"COMPLETED"}
    assert all(t.retries == 0 for t in trials)  # none lost, none run again
    steps = Counter((r.trial_id, r.step) for r in search.store.results(search.experiment_id))
    assert set(steps.values()) == {1} and len(steps) == 14 * 20  # every step stored once
    for trial in trials:  # the notebook's data and class computed every value
        assert trial.value == pytest.approx((trial.params["x"] - 0.25) ** 2 + 1.0 / 21)
    events = [e["kind"] for e in search.store.events(search.experiment_id)]
    assert events.count("extend") == 1 and events.count("parallel") == 1


def test_a_detached_cell_refuses_an_objective_that_cannot_travel(tmp_path: Path) -> None:
    session = KernelSession(tmp_path)
    try:
        session.run("%load_ext hpnb.jupyter")
        session.run(textwrap.dedent("""\
            import threading
            LOCK = threading.Lock()

            def locked(x):
                with LOCK:
                    return x
            """))
        session.execute("%%hpsearch locked --name nope --detach\nmetric: loss\ntrials: 2\n"
                        "parameters:\n  x: {min: 0.0, max: 1.0}\n")
        session.drain_iopub()
        errors = [m["content"]["text"] for m in session.iopub if m["msg_type"] == "stream"
                  and m["content"]["name"] == "stderr"]
        assert "cannot be pickled" in "".join(errors), errors
        with Store(tmp_path / "hpnb.sqlite", readonly=True) as store:
            assert store.find_experiment("nope") is None  # nothing started
    finally:
        session.close()


def test_commands_to_a_stored_search_without_a_driver_are_refused_at_once(tmp_path: Path) -> None:
    session = KernelSession(tmp_path)
    try:
        session.run("%load_ext hpnb.jupyter")
        session.run("import hpnb\n"
                    "done = hpnb.search(lambda x: {'loss': x}, name='done', metric='loss', trials=1,\n"
                    "    parameters={'x': {'min': 0.0, 'max': 1.0}}, resources={'workers': 1})\n"
                    "done.wait()")
        started = time.monotonic()
        out = session.run("try:\n    hpnb.load('done').stop()\nexcept Exception as e:\n    print(e)")
        assert "search 'done' is not running (COMPLETED)" in out
        assert time.monotonic() - started < 5  # refused at once, never left pending
        with Store(tmp_path / "hpnb.sqlite", readonly=True) as store:
            record = store.experiment("done")
            assert store.pending_commands(record.id) == []
    finally:
        session.run("import hpnb.cluster.connect as c; c.shutdown_local()")
        session.close()
