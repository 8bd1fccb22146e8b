"""A spec that names no strategy runs ``auto``, and ``hpnb show`` says what it chose and why."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hpnb.core.store import Store
from tests.cli.test_run_resume_demo import OBJECTIVE, hpnb_cli

SPEC = textwrap.dedent("""\
    metric: loss
    trials: 8
    seed: 0
    parameters:
      x: {min: 0.0, max: 1.0}
      layers: {type: int, min: 1, max: 30}
    resources: {workers: 2}
    """)


def test_run_without_a_strategy_runs_auto_and_show_says_what_it_chose(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "train.py").write_text(OBJECTIVE)
    done = hpnb_cli("run", "spec.yaml", "--objective", "train:train", "--name", "chosen", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = hpnb_cli("show", "chosen", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "strategy   auto (gp: 8 trials, 1 continuous, 1 integer parameters)" in shown.stdout, shown.stdout
    with Store(tmp_path / "home" / "hpnb.sqlite", readonly=True) as store:
        trials = store.trials(store.experiment("chosen").id)
    assert len(trials) == 8 and {t.state for t in trials} == {"COMPLETED"}
