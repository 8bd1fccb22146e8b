"""``hpnb import katib`` and ``hpnb export NAME --format katib``, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hpnb.cli import main
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store
from tests.core.interop.katib_examples import example_path, example_text, experiment_errors


def hpnb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hpnb", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


# -- hpnb import katib ------------------------------------------------------------------------------

def test_import_prints_a_spec_that_hpnb_check_accepts(tmp_path: Path) -> None:
    done = hpnb("import", "katib", str(example_path("random")))
    assert done.returncode == 0, done.stderr
    assert parse_spec(done.stdout) == import_katib(example_text("random")).spec
    # one list of what does not carry over, on standard error
    assert done.stderr.startswith("hpnb import katib: not carried over exactly (")
    assert "  - spec.trialTemplate [line 45]: not carried" in done.stderr
    assert "  - spec.objective.additionalMetricNames [line 12]" in done.stderr
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(done.stdout)
    checked = hpnb("check", str(spec_file))
    assert checked.returncode == 0, checked.stderr
    assert "strategy:       random" in checked.stdout and "trials:         12" in checked.stdout


def test_import_writes_the_spec_and_refuses_to_overwrite_it(tmp_path: Path) -> None:
    out = tmp_path / "spec.yaml"
    first = hpnb("import", "katib", str(example_path("hyperband")), "-o", str(out))
    assert first.returncode == 0, first.stderr
    assert first.stdout == ""
    assert parse_spec(out.read_text()).early_stopping.rule == "hyperband"
    out.write_text("# mine\n")
    again = hpnb("import", "katib", str(example_path("pbt")), "-o", str(out))
    assert again.returncode == 2
    assert again.stderr == f"hpnb import: {out}: already exists; give --force to replace it\n"
    assert out.read_text() == "# mine\n"
    forced = hpnb("import", "katib", str(example_path("pbt")), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert parse_spec(out.read_text()).strategy.name == "pbt"


def test_a_file_that_is_not_an_experiment_exits_2_before_anything_is_written(tmp_path: Path) -> None:
    source = tmp_path / "trial.yaml"
    source.write_text(example_text("random").replace("kind: Experiment", "kind: Trial"))
    out = tmp_path / "spec.yaml"
    done = hpnb("import", "katib", str(source), "-o", str(out))
    assert done.returncode == 2
    assert done.stderr == (f"hpnb import: {source}: kind: is not a Katib Experiment (got 'Trial'); "
                           "allowed: Experiment [line 3]\n")
    assert not out.exists() and done.stdout == ""


BAD = {
    "not YAML": ("apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nspec: {objective: [\n",
                 "YAML syntax error"),
    "not a mapping": ("- kind: Experiment\n", "the YAML document is a list, not a mapping"),
    "wrong kind": (example_text("grid").replace("kind: Experiment", "kind: Suggestion"),
                   "kind: is not a Katib Experiment (got 'Suggestion'); allowed: Experiment [line 3]"),
    "wrong apiVersion": (example_text("grid").replace("v1beta1", "v1alpha3"),
                         "apiVersion: is not a Katib version hpnb reads (got 'kubeflow.org/v1alpha3'); "
                         "allowed: kubeflow.org/v1beta1 [line 2]"),
    "unknown parameterType": (example_text("grid").replace("parameterType: double", "parameterType: real", 1),
                              "spec.parameters[0].parameterType: unknown Katib parameter type (got 'real'); "
                              "allowed: double, int, discrete, categorical"),
    "feasibleSpace without min": (example_text("cmaes").replace('min: "0.5", ', ""),
                                  "spec.parameters[1].feasibleSpace.min: is missing: a double parameter "
                                  "needs min and max"),
    "empty": ("# nothing\n", "the file is empty"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_error_with_exit_status_2(case: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = BAD[case]
    source = tmp_path / "experiment.yaml"
    source.write_text(text)
    out = tmp_path / "spec.yaml"
    assert main(["import", "katib", str(source), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"hpnb import: {source}: ") and expected in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    if case not in ("empty", "not a mapping"):
        assert "[line " in captured.err
    assert not out.exists() and captured.out == ""


def test_files_that_cannot_be_read_or_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a" * (1024 * 1024 + 1))
    source = str(example_path("grid"))
    (tmp_path / "folder").mkdir()
    (tmp_path / "link.yaml").symlink_to(tmp_path / "target.yaml")
    cases = [
        (["import", "katib", str(big)], "bytes or more, more than the limit"),
        (["import", "katib", str(tmp_path / "missing.yaml")], "no such file"),
        (["import", "katib", source, "-o", str(tmp_path / "folder")], "is a directory"),
        (["import", "katib", source, "-o", str(tmp_path / "no" / "spec.yaml")], "does not exist"),
        (["import", "katib", source, "-o", str(tmp_path / "link.yaml"), "--force"], "symbolic link"),
        (["import", "katib", source, "-o", os.devnull, "--force"], "not a plain file"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("hpnb import: ") and expected in err, (argv, err)
    assert not (tmp_path / "target.yaml").exists()


# -- hpnb export NAME --format katib -----------------------------------------------------------------

SPEC = """
metric: val_loss
mode: min
strategy: {name: tpe, n_ei_candidates: 16}
trials: 12
parallel: 3
seed: 4
early_stopping: {rule: median, grace: 2, min_trials: 3, use: average}
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 0.1}
  layers: {type: int, min: 1, max: 4}
  optimizer: [sgd, adam]
"""


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "hpnb.sqlite"
    spec = parse_spec(SPEC)
    with Store(path) as store:
        exp = store.create_experiment("mlp_lr", spec.to_dict(), metric="val_loss", mode="min",
                                      strategy="tpe", budget=20, parallel=3)
        store.add_trial(exp.id, 0, {"lr": 0.01, "layers": 2, "optimizer": "sgd"})
        store.add_results(exp.id, [ResultRow(0, 1, 1, 1000.0, 0.5, {"val_loss": 0.5, "accuracy": 0.8,
                                                                    "phase": "warmup"})])
    return path


def test_export_writes_a_katib_experiment_that_validates_and_reads_back(store_path: Path,
                                                                         tmp_path: Path) -> None:
    out = tmp_path / "experiment.yaml"
    done = hpnb("export", "mlp_lr", "--format", "katib", "-o", str(out), "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    assert "hpnb export: what the Katib Experiment does not say (" in done.stderr
    assert "fill in its trial template (marked FILL-IN)" in done.stderr
    text = out.read_text()
    assert "# FILL-IN: the trial template below is a placeholder" in text
    document = yaml.safe_load(text)
    assert experiment_errors(document) == []
    assert document["metadata"]["name"] == "mlp-lr"
    assert document["spec"]["maxTrialCount"] == 20  # the stored budget
    assert document["spec"]["objective"]["additionalMetricNames"] == ["accuracy"]
    again = import_katib(text).spec
    spec = parse_spec(SPEC)
    assert (again.space, again.strategy, again.early_stopping, again.seed, again.parallel) == (
        spec.space, spec.strategy, spec.early_stopping, spec.seed, spec.parallel)
    refused = hpnb("export", "mlp_lr", "--format", "katib", "-o", str(out), "--store", str(store_path))
    assert refused.returncode == 2 and "already exists; give --force" in refused.stderr


def test_export_to_standard_output_and_its_errors(store_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "mlp_lr", "--format", "katib", "--store", str(store_path)]) == 0
    captured = capsys.readouterr()
    assert yaml.safe_load(captured.out)["kind"] == "Experiment"
    assert main(["export", "mlp-lr", "--format", "katib", "--store", str(store_path)]) == 2
    assert "mlp-lr" in capsys.readouterr().err
    assert main(["export", "mlp_lr", "--format", "katib", "--history", "--store", str(store_path)]) == 2
    assert "leave out --history" in capsys.readouterr().err
