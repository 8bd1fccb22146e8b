"""``hpnb run`` with warm starts, as a user runs it: enqueue first, then a search learning the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.cli.test_run_resume_demo import OBJECTIVE, SPEC, hpnb_cli


@pytest.mark.slow
def test_run_enqueues_then_a_second_run_warm_starts_from_the_first(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(OBJECTIVE)
    (tmp_path / "first.yaml").write_text(SPEC + "enqueue:\n  - {x: 0.3, layers: 1}\n")
    (tmp_path / "second.yaml").write_text(SPEC.replace("strategy: random", "strategy: tpe")
                                          + "warm_start: {from: first}\n")
    done = hpnb_cli("run", "first.yaml", "--objective", "train:train", "--name", "first", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = hpnb_cli("run", "second.yaml", "--objective", "train:train", "--name", "second", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warm start from 'first': learns 6 completed trials" in done.stdout
    with Store(tmp_path / "home" / "hpnb.sqlite", readonly=True) as store:
        first = store.trials(store.experiment("first").id)
        assert first[0].params == {"x": 0.3, "layers": 1} and len(first) == 6


def test_run_refuses_an_unknown_source_in_one_line_naming_its_line(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(OBJECTIVE)
    (tmp_path / "spec.yaml").write_text(SPEC.replace("strategy: random", "strategy: tpe")
                                        + "warm_start: {from: nowhere}\n")
    done = hpnb_cli("run", "spec.yaml", "--objective", "train:train", cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "warm_start.from: names no search in the store (got 'nowhere')" in done.stderr
    assert "[line 10]" in done.stderr and "Traceback" not in done.stderr
