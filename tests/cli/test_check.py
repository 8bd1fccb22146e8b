"""``hpnb check``: the plan of a valid spec, the error of an invalid one, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hpnb.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_valid_spec_prints_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "mlp.yaml")]) == 0
    out = capsys.readouterr().out
    assert "spec is valid" in out
    assert "logUniform [1e-05, 0.1]" in out
    assert "categorical [sgd, adam, rmsprop]" in out
    assert "normal(mu=0.3, sigma=0.1)" in out
    assert "trials:         40" in out
    assert "asha (grace=1, reduction=3, max_t=27)" in out
    assert "limits cpu=2 memory=4Gi" in out


def test_lists_show_whether_they_are_ordered_and_a_mixed_one_is_said_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "lists.yaml"
    spec.write_text("metric: loss\nparameters:\n  lr: [0.1, 0.001, 0.01]\n  act: [relu, tanh]\n"
                    "  mixed: [1, auto, 3]\n  seed: {values: [1, 7], ordered: false}\n  batch: [64]\n")
    assert main(["check", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "lr     ordered [0.001, 0.01, 0.1] log" in out
    assert "act    categorical [relu, tanh]" in out
    assert "seed   categorical [1, 7]" in out
    assert "batch  fixed 64" in out
    assert out.count("numbers and labels mixed") == 1
    said = out.index("numbers and labels mixed")
    assert out.index("mixed  categorical [1, auto, 3]") < said < out.index("seed   ")


def test_grid_size_is_printed_for_a_finite_space(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "grid.yaml"
    spec.write_text("metric: acc\nmode: max\nstrategy: grid\nparameters:\n"
                    "  a: [1, 2, 3]\n  b: {type: int, min: 1, max: 4}\n"
                    "  c: {min: 0.0, max: 1.0, step: 0.25}\n")
    assert main(["check", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "grid size:      60 configuration(s)" in out
    assert "trials:         60" in out
    assert "acc (maximise)" in out


@pytest.mark.parametrize("example", ["legion.yaml", "katib.yaml"])
def test_examples_are_valid(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / example)]) == 0
    assert "spec is valid" in capsys.readouterr().out


def test_overrides_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "mlp.yaml"), "--trials", "7", "--parallel", "2",
                 "--strategy", "sobol"]) == 0
    out = capsys.readouterr().out
    assert "trials:         7" in out
    assert "parallel:       2" in out
    assert "strategy:       sobol" in out


def test_invalid_spec_prints_the_error_and_exits_2(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("metric: loss\nparameters:\n  lr: {distribution: logUnifrom, min: 1.0e-5, max: 0.1}\n")
    assert main(["check", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "parameters.lr.distribution: unknown distribution (got 'logUnifrom')" in captured.err
    assert "did you mean 'logUniform'" in captured.err
    assert "[line 3]" in captured.err
    assert "Traceback" not in captured.err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_directory_instead_of_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_cluster_flag_for_a_local_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "legion.yaml"), "--cluster"]) == 0
    assert "cluster:        local" in capsys.readouterr().out


def test_cluster_flag_prints_the_kubernetes_manifest(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "k8s.yaml"
    spec.write_text("name: mlp\nmetric: loss\nparameters: {a: [1, 2]}\nresources:\n  cluster: kubernetes\n"
                    "  workers: 3\n  limits: {cpu: '2', memory: 4Gi}\n"
                    "  kubernetes: {image: 'ghcr.io/x/y:1'}\n")
    assert main(["check", str(spec), "--cluster"]) == 0
    out = capsys.readouterr().out
    manifest = out[out.index("apiVersion:"):]
    cluster = next(doc for doc in yaml.safe_load_all(manifest) if doc["kind"] == "DaskCluster")
    assert cluster["spec"]["worker"]["replicas"] == 3
    worker = cluster["spec"]["worker"]["spec"]["containers"][0]
    assert worker["image"] == "ghcr.io/x/y:1"
    assert worker["resources"]["limits"] == {"cpu": "2", "memory": "4Gi"}


def test_real_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    good = subprocess.run([sys.executable, "-m", "hpnb", "check", str(EXAMPLES / "katib.yaml")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert good.returncode == 0, good.stderr
    assert "num-layers  int [2, 5]" in good.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("metric: loss\nmode: lowest\n")
    failed = subprocess.run([sys.executable, "-m", "hpnb", "check", str(bad)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert failed.returncode == 2
    assert "mode: unknown mode (got 'lowest'); allowed: min, max" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_several_objectives_and_warm_starts_are_in_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "two-objectives.yaml")]) == 0
    out = capsys.readouterr().out
    assert "metrics:        minimise val_loss, minimise latency_ms (a Pareto front)" in out
    assert ("warm start:     1 enqueued configuration runs first; learns the completed trials of "
            "'mlp-lr'") in out
    assert "trials:         60" in out


@pytest.mark.parametrize(("section", "expected"), [
    ("nas:\n  layers: 2\n  nodes: 2\n  operations: [separable_convolution_3x3, max_polling_3x3]\n",
     "nas.operations[1]"),
    ("llm:\n  model: ./tiny\n  dataset: {source: ./data.jsonl, text: text}\n  training:\n"
     "    learning_rates: 0.001\n", "llm.training.learning_rates"),
])
def test_a_built_in_objectives_section_is_checked_by_its_room_with_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, expected: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("trials: 2\n" + section)
    assert main(["check", str(spec)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "line " in err and "did you mean" in err, err
