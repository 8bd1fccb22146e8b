"""The magics' registration, help, and every kind of bad input, through a real IPython shell.

Nothing here starts a search: every mistake must be reported before anything runs,
as a plain UsageError (no traceback).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp

from hpnb.core.store import Store

SPEC = """metric: loss
parameters:
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
"""


def get_ipython():
    """The test suite's one global shell (``globalipapp.get_ipython`` is rebound once it starts)."""
    globalipapp.start_ipython()
    return globalipapp.get_ipython()


@pytest.fixture
def ip():
    shell = get_ipython()
    shell.run_line_magic("load_ext", "hpnb.jupyter")
    shell.run_cell("def train(lr):\n    return {'loss': lr}\nnot_a_function = 3\n")
    yield shell
    shell.run_line_magic("unload_ext", "hpnb.jupyter")


def _usage_error(ip, line: str, body: str | None) -> str:
    with pytest.raises(UsageError) as info:
        if body is None:
            ip.run_line_magic("hpsearch", line)
        else:
            ip.run_cell_magic("hpsearch", line, body)
    assert type(info.value) is UsageError  # a subclass would print a traceback
    return str(info.value)


def test_load_registers_both_magics_twice_harmlessly_and_unload_removes_them() -> None:
    shell = get_ipython()
    shell.run_line_magic("load_ext", "hpnb.jupyter")
    from hpnb.jupyter import load_ipython_extension, unload_ipython_extension

    load_ipython_extension(shell)  # a second registration replaces the first
    assert shell.find_cell_magic("hpsearch") is not None
    assert shell.find_line_magic("hpsearch") is not None
    unload_ipython_extension(shell)
    assert shell.find_cell_magic("hpsearch") is None
    assert shell.find_line_magic("hpsearch") is None
    load_ipython_extension(shell)
    assert shell.find_cell_magic("hpsearch") is not None
    shell.run_line_magic("unload_ext", "hpnb.jupyter")


def test_cell_magic_help_lists_every_option(ip) -> None:
    doc = ip.find_cell_magic("hpsearch").__doc__
    for option in ("objective", "--name", "-o VAR, --out VAR", "--trials", "--parallel", "--strategy",
                   "--dry-run", "--wait", "--store PATH", "--resume", "--overwrite"):
        assert option in doc, option
    line_doc = ip.find_line_magic("hpsearch").__doc__
    for command in ("list", "show NAME", "stop NAME", "resume NAME", "extend NAME N", "export NAME"):
        assert f"%hpsearch {command}" in line_doc


def test_spec_mistakes_carry_the_field_value_and_what_is_allowed(ip) -> None:
    body = "metric: loss\nparameters:\n  lr: {distribution: logUnifrom, min: 1, max: 2}\n"
    message = _usage_error(ip, "train", body)
    assert "parameters.lr.distribution" in message
    assert "logUnifrom" in message and "logUniform" in message


def test_overrides_are_validated_like_the_body(ip) -> None:
    message = _usage_error(ip, "train --strategy randon", SPEC)
    assert "strategy" in message and "random" in message


def test_an_unknown_objective_suggests_the_closest_function(ip) -> None:
    message = _usage_error(ip, "trian", SPEC)
    assert "'trian' is not defined" in message and "did you mean 'train'" in message


def test_an_objective_that_is_not_callable_is_refused(ip) -> None:
    message = _usage_error(ip, "not_a_function", SPEC)
    assert "'not_a_function' is not a function (it is of type int)" in message


def test_an_empty_body_explains_what_to_write(ip) -> None:
    message = _usage_error(ip, "train", "  \n\n")
    assert "cell body is empty" in message and "metric:" in message


@pytest.mark.parametrize(("line", "expected"), [
    ("", "objective"),
    ("train --trials many", "--trials"),
    ("train --no-such-option", "unrecognized arguments"),
    ("train --resume --overwrite", "exclude each other"),
    ("train -o 2fast", "not a valid Python variable name"),
    ("train --name 'bad name!'", "name"),
])
def test_bad_options_are_usage_errors(ip, line: str, expected: str) -> None:
    assert expected in _usage_error(ip, line, SPEC)


def test_dry_run_prints_the_plan_and_starts_nothing(ip, tmp_path: Path, capsys) -> None:
    store = tmp_path / "hpnb.sqlite"
    line = f"train --name planned --trials 7 --parallel 3 --dry-run --store {store}"
    ip.run_cell_magic("hpsearch", line, SPEC)

    out = capsys.readouterr().out
    assert "dry run of 'planned': nothing started" in out
    assert "trials:         7, 3 at once" in out
    assert "lr  logUniform [0.0001, 0.1]" in out
    assert "a local Dask cluster on this machine" in out
    assert "planned" not in ip.user_ns
    with Store(store, readonly=True) as opened:
        assert opened.experiments() == []


def test_dry_run_on_kubernetes_prints_the_manifest(ip, capsys) -> None:
    body = SPEC + "resources:\n  cluster: kubernetes\n  workers: 3\n  limits: {cpu: '2', memory: 4Gi}\n"
    ip.run_cell_magic("hpsearch", "train --name kube-plan --dry-run", body)

    out = capsys.readouterr().out
    assert "kind: DaskCluster" in out and "replicas: 3" in out and "memory: 4Gi" in out


def test_dry_run_with_an_unknown_cluster_name_is_a_usage_error(ip) -> None:
    message = _usage_error(ip, "train --dry-run", SPEC + "resources: {cluster: my_client}\n")
    assert "my_client" in message


def test_run_cell_shows_the_message_without_a_traceback(ip, capsys) -> None:
    result = ip.run_cell("%%hpsearch trian\nmetric: loss\nparameters:\n  lr: [1, 2]\n")

    assert type(result.error_in_exec) is UsageError
    err = capsys.readouterr().err
    assert "UsageError:" in err and "did you mean 'train'" in err and "Traceback" not in err


@pytest.mark.parametrize(("line", "expected"), [
    ("", "needs a command"),
    ("frobnicate", "invalid choice"),
    ("show", "required"),
    ("extend demo many", "invalid int"),
    ("export demo --format xls", "invalid choice"),
])
def test_bad_line_magic_commands_are_usage_errors(ip, line: str, expected: str) -> None:
    assert expected in _usage_error(ip, line, None)


def test_line_magic_on_an_unknown_name_suggests_a_stored_one(ip, tmp_path: Path) -> None:
    store = tmp_path / "hpnb.sqlite"
    with Store(store) as opened:
        opened.create_experiment("mlp-lr", {}, metric="loss", mode="min", strategy="random", budget=1,
                                 parallel=None)
    message = _usage_error(ip, f"stop mlp_lr --store {store}", None)
    assert "no experiment named 'mlp_lr'" in message and "did you mean 'mlp-lr'" in message


def test_a_cell_without_a_function_or_a_built_in_section_says_what_to_write(ip) -> None:
    message = _usage_error(ip, "--trials 3", SPEC)
    assert "%%hpsearch train" in message and "llm:" in message
