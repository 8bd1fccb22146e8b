"""``hpnb run`` given SIGINT or SIGTERM, once or twice, and one driver per search across processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import IO

import pytest

import hpnb
from hpnb.core.errors import HpnbError
from hpnb.core.store import Store
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SPEC = textwrap.dedent("""\
    name: slow
    metric: loss
    strategy: random
    trials: 8
    seed: 0
    parameters:
      x: {min: 0.0, max: 1.0}
    resources: {workers: 2}
    """)

OBJECTIVE = textwrap.dedent("""\
    import time
    import hpnb

    def train(x):
        for step in range(200):
            time.sleep(0.05)  # the trial's work
            hpnb.report(step=step, loss=x + step)
        return x

    def slow_to_answer(x):
        for step in range(20):
            hpnb.report(step=step, loss=x + step)
            time.sleep(3)  # a long step: a stop request waits for the next report
        return x

    def quick(x):
        hpnb.report(step=0, loss=x)
        return x
    """)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "train.py").write_text(OBJECTIVE)
    return tmp_path


def _start_run(project: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "HPNB_HOME": str(project / "home"), "PYTHONUNBUFFERED": "1"}
    args = args or ("--objective", "train:train")
    return subprocess.Popen([sys.executable, "-m", "hpnb", "run", "spec.yaml", *args], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_as_in_a_terminal)


def _as_in_a_terminal() -> None:
    """A command typed in a terminal takes Ctrl-C; one started in the background of a script
    inherits SIGINT ignored (as this test run may be), and Python then ignores it too."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _store(project: Path) -> Store:
    return Store(project / "home" / "hpnb.sqlite", readonly=True)


def _steps(project: Path) -> int:
    if not (project / "home" / "hpnb.sqlite").exists():
        return 0
    with _store(project) as store:
        record = store.find_experiment("slow")
        return 0 if record is None else len(store.results(record.id))


def _wait_for_steps(project: Path, at_least: int = 3, timeout: float = 90) -> None:
    wait_until(lambda: _steps(project) >= at_least, timeout, "the search reporting", interval=0.1)


def _collect_lines(stream: IO[str], into: list[str]) -> threading.Thread:
    """Append each line of ``stream`` to ``into`` as it comes, from a thread of its own."""

    def read() -> None:
        for line in stream:
            into.append(line)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _state(project: Path) -> tuple[str, list[str]]:
    with _store(project) as store:
        record = store.experiment("slow")
        return record.state, [t.state for t in store.trials(record.id)]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_search_cleanly_and_says_so(project, signum, code):
    run = _start_run(project)
    _wait_for_steps(project)
    run.send_signal(signum)
    out, err = run.communicate(timeout=60)
    assert run.returncode == code, err
    assert "search 'slow': STOPPED" in out
    assert "Traceback" not in err, err
    state, trials = _state(project)
    assert state == "STOPPED"
    assert "RUNNING" not in trials


def test_ctrl_c_in_a_terminal_reaches_the_whole_process_group(project):
    run = _start_run(project)
    _wait_for_steps(project)
    os.killpg(run.pid, signal.SIGINT)  # what a terminal does: the driver and its worker processes
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "search 'slow': STOPPED" in out
    assert _state(project)[0] == "STOPPED"


def test_a_second_interrupt_exits_at_once_and_the_search_resumes(project):
    (project / "spec.yaml").write_text(SPEC.replace("trials: 8", "trials: 3"))
    run = _start_run(project, "--objective", "train:slow_to_answer")
    _wait_for_steps(project, at_least=1)
    said: list[str] = []
    reader = _collect_lines(run.stderr, said)
    run.send_signal(signal.SIGINT)
    wait_until(lambda: any("stopping search" in line for line in said), 60, "the first interrupt taken")
    run.send_signal(signal.SIGINT)
    assert run.wait(timeout=30) == 130  # not communicate(): the reader thread owns stderr
    reader.join(10)
    assert "can be resumed" in "".join(said)
    env = {**os.environ, "HPNB_HOME": str(project / "home")}
    resumed = subprocess.run([sys.executable, "-m", "hpnb", "resume", "slow", "--objective", "train:quick"],
                             cwd=project, env=env, capture_output=True, text=True, timeout=240)
    assert resumed.returncode == 0, resumed.stderr
    state, trials = _state(project)
    assert state == "COMPLETED"
    assert trials == ["COMPLETED"] * 3


def test_a_search_driven_by_another_process_cannot_be_resumed_here(project, monkeypatch):
    run = _start_run(project)
    try:
        _wait_for_steps(project)
        monkeypatch.setenv("HPNB_HOME", str(project / "home"))
        with pytest.raises(HpnbError, match=rf"already driven by .*:{run.pid}"):
            hpnb.resume("slow", lambda x: x)
    finally:
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
