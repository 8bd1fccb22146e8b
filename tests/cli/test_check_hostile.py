"""``hpnb check`` (the real command, in a subprocess) on hostile specs: one clear line, exit code 2.

The specs are the ones ``benchmarks/hostile_specs.py`` times; this test checks their messages only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.hostile_specs import HOSTILE, ROOT


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_spec_is_refused_in_one_line(name: str, tmp_path: Path) -> None:
    content, expected = HOSTILE[name]
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(content())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "hpnb", "check", str(spec)], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"hpnb check: {spec}: ")
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert len(result.stderr) < 600
