"""``hpnb check`` on a conditional spec: each condition beside its parameter, the exact grid size."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpnb.cli import main

SPEC = """\
metric: acc
mode: max
strategy: grid
parameters:
  optimizer: [sgd, adam, rmsprop]
  momentum: {min: 0.5, max: 0.9, step: 0.2, when: {optimizer: sgd}}
  nesterov: {values: [true, false], when: {optimizer: sgd}}
  beta: {values: [0.9, 0.99], when: {optimizer: [adam, rmsprop]}}
"""


def test_check_prints_conditions_and_counts_valid_combinations_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "conditional.yaml"
    spec.write_text(SPEC)
    assert main(["check", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "grid size:      10 configuration(s)" in out  # sgd 3 x 2, adam 2, rmsprop 2 (not 3 x 3 x 2 x 2)
    assert "trials:         10" in out
    assert "(when optimizer: sgd)" in out and "(when optimizer: [adam, rmsprop])" in out


def test_check_names_the_field_and_line_of_a_bad_condition(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(SPEC.replace("step: 0.2, when: {optimizer: sgd}", "step: 0.2, when: {optimiser: sgd}"))
    assert main(["check", str(spec)]) != 0
    err = capsys.readouterr().err
    assert "parameters.momentum.when.optimiser" in err and "line 6" in err
    assert "did you mean 'optimizer'" in err
