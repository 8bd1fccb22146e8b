"""``hpnb run`` given careless input: one clear line, exit 2, nothing started."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_run_resume_demo import OBJECTIVE, SPEC, hpnb_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(OBJECTIVE)
    (tmp_path / "spec.yaml").write_text(SPEC)
    return tmp_path


@pytest.mark.parametrize(("spec_bytes", "args", "words"), [
    ("metric: loss\nmode: m\xe9n\n".encode("latin-1"), [], ["spec.yaml", "is not UTF-8"]),
    (SPEC.encode(), ["--name=-rf"], ["name: ", "'-rf'"]),
    (SPEC.encode(), ["--name=.."], ["name: ", "'..'"]),
    (SPEC.encode(), ["--trials", str(10**30)], ["trials: is more than the limit"]),
    (SPEC.encode(), ["--timeout", "soon"], ["timeout: is not a duration"]),
])
def test_run_refuses_careless_input_in_one_line(project, spec_bytes, args, words):
    (project / "spec.yaml").write_bytes(spec_bytes)
    done = hpnb_cli("run", "spec.yaml", "--objective", "train:train", *args, cwd=project, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert all(word in done.stderr for word in words), done.stderr
    assert not (project / "home" / "hpnb.sqlite").exists()  # nothing started, not even a store
