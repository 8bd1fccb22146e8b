"""The notebook's Interrupt button during ``search.wait()``, in a real kernel."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.jupyter.kernel_session import KernelSession
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SETUP = textwrap.dedent("""\
    import time
    import numpy as np
    import hpnb

    def train(x):
        for step in range(100):
            time.sleep(0.05)  # the trial's work
            hpnb.report(step=step, loss=np.float64(x + step))
        return np.float64(x)

    search = hpnb.search(train, name="interrupted", metric="loss", trials=4, parallel=2, seed=1,
                         parameters={"x": {"min": 0.0, "max": 1.0}}, resources={"workers": 2})
    """)


@pytest.fixture
def kernel(tmp_path: Path):
    session = KernelSession(tmp_path)
    yield session
    session.close()


def test_interrupting_wait_leaves_the_handle_in_charge_of_its_search(kernel, tmp_path):
    kernel.run(SETUP)
    # an error reply would abort the cells queued just after it; the next cells must run
    msg_id = kernel.client.execute("search.wait()", stop_on_error=False)
    wait_until(lambda: kernel.results_stored("interrupted") >= 4, message="results while wait() blocks")
    kernel.manager.interrupt_kernel()
    while True:
        reply = kernel.client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"

    assert kernel.run("print(search.is_live, search.state)").split() == ["True", "RUNNING"]
    running = kernel.run(textwrap.dedent("""\
        running = [t.trial_id for t in search.store.trials(search.experiment_id) if t.state == "RUNNING"]
        print(running[0])
        search.stop_trial(running[0])
        search.extend(2)
        """))
    stopped_id = int(running.strip())
    assert kernel.run("print(search.wait().state)").strip() == "COMPLETED"

    with Store(tmp_path / "hpnb.sqlite", readonly=True) as store:
        record = store.experiment("interrupted")
        trials = store.trials(record.id)
        rows = store.results(record.id)
    assert record.budget == 6
    assert len(trials) == 6
    states = {t.trial_id: t.state for t in trials}
    assert states.pop(stopped_id) == "STOPPED"
    assert set(states.values()) == {"COMPLETED"}
    # one driver all along: no trial ran twice, no (trial, step) was stored twice
    counts = Counter((r.trial_id, r.step) for r in rows)
    assert max(counts.values()) == 1
