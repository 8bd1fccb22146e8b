"""A script that starts a local search without ``if __name__ == "__main__":`` fails fast and says so."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

GUARD = 'if __name__ == "__main__":'
OBJECTIVE = textwrap.dedent("""\
    import hpnb

    def train(x):
        return (x - 0.3) ** 2

    SPEC = {"metric": "loss", "mode": "min", "strategy": "random", "trials": 2, "seed": 0,
            "parameters": {"x": {"min": 0.0, "max": 1.0}}, "resources": {"workers": 2}}
    """)
UNGUARDED = OBJECTIVE + 'hpnb.search(train, SPEC, name="unguarded").wait()\n'
GUARDED = OBJECTIVE + textwrap.dedent(f"""\
    {GUARD}
        search = hpnb.search(train, SPEC, name="guarded").wait()
        print("state:", search.state, "trials:", len(search.results))
    """)


def run_script(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as ``python script.py`` with its store under ``tmp_path``."""
    (tmp_path / "script.py").write_text(source)
    env = {**os.environ, "HPNB_HOME": str(tmp_path / "home")}
    try:
        return subprocess.run([sys.executable, "script.py"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:
        stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr
        pytest.fail(f"the script hung for {exc.timeout} s; its stderr:\n{stderr}")


def test_a_search_without_the_main_guard_fails_naming_the_guard(tmp_path: Path) -> None:
    done = run_script(tmp_path, UNGUARDED)
    assert done.returncode != 0
    # The script's own error, last: its cluster could not start because every worker refused.
    last_error = done.stderr[done.stderr.rindex("Traceback (most recent call last)"):]
    assert "hpnb.cluster.cluster_errors.MainGuardError: " in last_error, done.stderr
    assert GUARD in last_error and "script.py" in last_error
    # Each worker process, re-running the script, refused before touching the store.
    assert "NameTaken" not in done.stderr


def test_a_guarded_search_runs(tmp_path: Path) -> None:
    done = run_script(tmp_path, GUARDED)
    assert done.returncode == 0, done.stderr
    assert "state: COMPLETED trials: 2" in done.stdout
