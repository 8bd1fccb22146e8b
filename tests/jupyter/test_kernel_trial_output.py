"""A trial printing 10,000 lines a second on a threads-based cluster inside a real kernel: none of
it reaches a cell, the kernel keeps answering, and the trial's log keeps its last lines.

The p99 latency of ``1+1`` while it happens is measured by ``benchmarks/trial_output.py``; this
test checks that the kernel answers, not how fast.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from hpnb.core.trial_output import MAX_LINES
from tests.jupyter.kernel_session import KernelSession
from tests.waiting import patience

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

#: a threads-based cluster in the kernel process: its trials print through the kernel's sys.stdout.
SETUP = textwrap.dedent(f"""\
    import json, sys
    sys.path.insert(0, {str(ROOT)!r})
    import cloudpickle
    import hpnb
    from distributed import Client, LocalCluster
    from tests.runner import printing

    cloudpickle.register_pickle_by_value(printing)
    cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
    client = Client(cluster)
    """)


@pytest.fixture
def kernel(tmp_path: Path):
    session = KernelSession(tmp_path)
    yield session
    session.run("client.close(); cluster.close()")
    session.close()


def test_a_flooding_trial_in_the_kernel_process_never_prints_in_a_cell(kernel):
    kernel.run(SETUP)
    kernel.run('search = hpnb.search(printing.prints_steadily, name="steady", client=client, metric="loss", '
               'trials=1, parameters={"seconds": [4.0]})')
    answered = 0
    while kernel.run("print(search.state)").strip() == "RUNNING":
        reply, _ = kernel.execute("1+1")
        assert reply["content"]["status"] == "ok"
        answered += 1
    assert answered >= 10, "the search ended before the kernel was asked anything"
    state = kernel.run(f"print(search.wait({patience(60):g}).state)").strip()
    assert state == "COMPLETED", kernel.run("print(search.message); print(search.results.to_dict('records'))")
    assert kernel.run("print('the notebook prints as before')") == "the notebook prints as before\n"

    kernel.drain_iopub()
    leaked = [m["content"]["text"] for m in kernel.iopub if m["msg_type"] == "stream"
              and "steady" in m["content"]["text"]]
    assert not leaked, f"trial output reached a cell: {leaked[0][:200]!r}"

    log = json.loads(kernel.run("print(json.dumps(search.logs(0).to_json()))"))
    printed = int(json.loads(kernel.run("print(json.dumps(search.best['metrics']))"))["lines"])
    assert printed >= 10_000, "the trial did not print at the rate asked"
    assert log["stdout"].splitlines() == [f"steady line {i}" for i in range(printed - MAX_LINES, printed)]
    assert log["stderr"].splitlines()[-1] == f"steady warned at {printed // 5000 * 5000}"
    assert log["truncated"] and log["stdout_bytes"] > 100_000
    assert log["worker"].startswith("inproc://")
