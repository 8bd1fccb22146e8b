"""A search driven by another process, killed as a kernel dies: driver and workers at once (for
``test_one_summary.py`` and ``benchmarks/interrupted_search.py``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import hpnb
from hpnb.core.store import Store
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]

DRIVER = textwrap.dedent("""\
    import sys, time
    sys.path.insert(0, {root!r})
    import hpnb

    def slow(x):
        for step in range(1000):
            time.sleep(0.05)  # the trial's work
            hpnb.report(step=step, loss=x + step)

    if __name__ == "__main__":
        hpnb.search(slow, name="killed", store={store!r}, metric="loss", trials=2,
                    parameters={{"x": {{"min": 0.0, "max": 1.0}}}}, resources={{"workers": 2}}).wait()
    """)


def start_driver(tmp_path: Path) -> tuple[Path, subprocess.Popen[bytes]]:
    """A driver process running a search into ``tmp_path``'s store; returns once the search runs."""
    path = tmp_path / "hpnb.sqlite"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(root=str(ROOT), store=str(path)))
    driver = subprocess.Popen([sys.executable, str(script)], start_new_session=True)

    def running() -> bool:
        with Store(path, readonly=True) as store:
            started = store.find_experiment("killed") is not None
        return started and hpnb.load("killed", store=path).state == "RUNNING"

    try:
        wait_until(running, 90, "the driver's search running", interval=0.2)
    except BaseException:
        kill_driver(driver)
        raise
    return path, driver


def kill_driver(driver: subprocess.Popen[bytes]) -> None:
    os.killpg(driver.pid, signal.SIGKILL)  # a killed kernel: driver and workers at once
    driver.wait(10)


def listed_state(path: Path) -> str:
    """The search's state as `hpnb list --json` in another process reads it."""
    env = {**os.environ, "HPNB_HOME": str(path.parent)}
    listed = subprocess.run([sys.executable, "-m", "hpnb", "list", "--json", "--store", str(path)],
                            capture_output=True, text=True, env=env, timeout=60, check=True)
    return str(json.loads(listed.stdout)[0]["state"])
