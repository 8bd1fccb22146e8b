"""Hostile and careless specs: hard size limits, short error messages, finite doubles, names, durations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from benchmarks.hostile_specs import block_nesting_spec, flow_nesting_spec
from hpnb.core.errors import MAX_QUOTE_CHARS, SpecError
from hpnb.core.space import FloatParameter
from hpnb.core.spec import check_experiment_name, describe_duration, parse_duration, parse_spec
from hpnb.core.spec.file import read_spec_file
from hpnb.core.spec.values import (
    MAX_CATEGORICAL_VALUES,
    MAX_DURATION,
    MAX_NAME_LENGTH,
    MAX_PARAMETERS,
    MAX_SPEC_BYTES,
    MAX_SPEC_DEPTH,
    MAX_TRIALS,
)
from hpnb.core.spec.yaml_lines import load_yaml


def _spec(**fields: Any) -> dict[str, Any]:
    return {"metric": "loss", "parameters": {"a": [1, 2]}, **fields}


def _error(source: str | dict[str, Any]) -> SpecError:
    with pytest.raises(SpecError) as caught:
        parse_spec(source)
    return caught.value


# -- sizes ------------------------------------------------------------------------------------------
def test_text_above_the_byte_limit_is_refused_before_parsing() -> None:
    text = "metric: loss\nparameters: {a: [1, 2]}\n# " + "x" * MAX_SPEC_BYTES
    assert "more than the limit of 1,048,576 bytes (MAX_SPEC_BYTES)" in str(_error(text))


def test_multibyte_text_is_measured_in_bytes() -> None:
    text = "metric: loss\nparameters: {a: [1, 2]}\n# " + "é" * (MAX_SPEC_BYTES // 2)
    assert "MAX_SPEC_BYTES" in str(_error(text))


@pytest.mark.parametrize("as_yaml", [True, False])
def test_too_many_parameters(as_yaml: bool) -> None:
    parameters = {f"p{i}": i for i in range(MAX_PARAMETERS + 1)}
    source: Any = _spec(parameters=parameters)
    if as_yaml:
        source = "metric: loss\nparameters:\n" + "".join(f"  p{i}: {i}\n" for i in parameters)
    err = _error(source)
    assert err.path == "parameters"
    assert "declares 1,001 parameters, more than the limit of 1,000 (MAX_PARAMETERS)" in str(err)
    assert "alias" not in str(err)


@pytest.mark.parametrize("definition", [
    list(range(MAX_CATEGORICAL_VALUES + 1)),
    {"values": list(range(MAX_CATEGORICAL_VALUES + 1))},
    {"type": "categorical", "feasibleSpace": {"list": list(range(MAX_CATEGORICAL_VALUES + 1))}},
])
def test_too_many_categorical_values(definition: Any) -> None:
    err = _error(_spec(parameters={"a": definition}))
    assert err.path.startswith("parameters.a")
    assert "lists 10,001 values, more than the limit of 10,000 (MAX_CATEGORICAL_VALUES)" in str(err)


def test_too_many_values_in_a_katib_list() -> None:
    item = {"name": "opt", "parameterType": "categorical",
            "feasibleSpace": {"list": [str(i) for i in range(MAX_CATEGORICAL_VALUES + 1)]}}
    assert "MAX_CATEGORICAL_VALUES" in str(_error(_spec(parameters=[item])))


def test_a_huge_python_categorical_is_refused_without_being_read() -> None:
    values = list(range(1_400_000))
    assert "lists 1,400,000 values" in str(_error(_spec(parameters={"a": values})))


def test_the_largest_categorical_is_accepted() -> None:
    spec = parse_spec(_spec(parameters={"a": [str(i) for i in range(MAX_CATEGORICAL_VALUES)]}))
    assert spec.space["a"].grid_size() == MAX_CATEGORICAL_VALUES


def test_a_long_plain_list_is_not_an_alias_bomb() -> None:
    text = "metric: loss\nparameters:\n  a: [" + ", ".join(map(str, range(9_000))) + "]\n" \
           + "".join(f"  p{i}: [{i}, {i + 1}]\n" for i in range(900))
    assert parse_spec(text).space["a"].grid_size() == 9_000


def test_an_alias_bomb_is_still_refused_as_one() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    assert "aliases repeat more than 100,000 values" in str(_error("\n".join(levels)))


@pytest.fixture
def yaml_loaders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts YAML loaders are made for, from now on."""
    made: list[str] = []

    class RecordedLoader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            made.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(yaml, "SafeLoader", RecordedLoader)
    return made


@pytest.mark.parametrize(("text", "found", "line"), [
    (flow_nesting_spec(10_000), "nests lists and mappings ('[' and '{') 10,000 levels deep", 3),
    (flow_nesting_spec(40_000, MAX_SPEC_BYTES), "nests lists and mappings ('[' and '{') 40,000 levels deep",
     3),
    (block_nesting_spec(MAX_SPEC_BYTES)[0], "indents its lines (block mappings and lists) 1,445 levels deep",
     1_446),
], ids=["10,000 levels of [", "40,000 levels of [ in 1 MiB", "1,445 levels of indentation in 1 MiB"])
def test_a_deeply_nested_spec_is_refused_before_yaml_reads_it(
        text: str, found: str, line: int, yaml_loaders: list[str]) -> None:
    err = _error(text)
    assert f"{found}, more than the limit of 64 (MAX_SPEC_DEPTH)" in str(err)
    assert err.allowed == "at most 64 levels of nesting"
    assert err.line == line
    assert yaml_loaders == []


@pytest.mark.parametrize("text", [
    "[" * MAX_SPEC_DEPTH + "1" + "]" * MAX_SPEC_DEPTH,
    "".join(" " * level + "x:\n" for level in range(MAX_SPEC_DEPTH - 1)) + " " * MAX_SPEC_DEPTH + "x: 1\n",
], ids=["flow", "block"])
def test_a_spec_nested_as_deep_as_the_limit_is_read_by_yaml(text: str, yaml_loaders: list[str]) -> None:
    data, _ = load_yaml(text)
    levels = 0
    while isinstance(data, (dict, list)):
        data = data["x"] if isinstance(data, dict) else data[0]
        levels += 1
    assert (levels, data) == (MAX_SPEC_DEPTH, 1)
    assert yaml_loaders == [text]


def test_brackets_in_strings_comments_and_plain_text_do_not_nest() -> None:
    deep = "[" * 100 + "{" * 100
    text = f"a: \"{deep}\"\nb: '{deep}'\nc: x{deep}\n# {deep}\nd: [1, '{deep}'] # {deep}\n"
    data, _ = load_yaml(text)
    assert data["a"] == data["b"] == deep and data["d"] == [1, deep]


@pytest.mark.parametrize(("field", "value", "limit"), [
    ("trials", 10**30, "1,000,000"), ("trials", 10**12, "1,000,000"), ("trials", 1e30, "1,000,000"),
    ("parallel", 10**9, "10,000"), ("retries", 10**9, "100"), ("max_failures", 10**30, "1,000,000"),
    ("seed", 2**64, "9,223,372,036,854,775,807"),
])
def test_counts_have_upper_bounds(field: str, value: Any, limit: str) -> None:
    err = _error(_spec(**{field: value}))
    assert err.path == field
    assert f"is more than the limit of {limit}" in str(err)


def test_the_largest_trials_is_accepted() -> None:
    assert parse_spec(_spec(trials=MAX_TRIALS)).trials == MAX_TRIALS


def test_grid_cap_has_an_upper_bound() -> None:
    err = _error(_spec(strategy={"name": "grid", "cap": 10**18},
                       parameters={"x": {"min": 0.0, "max": 1.0, "step": 1e-12}}))
    assert err.path == "strategy.cap"
    assert "more than the limit of 1,000,000" in str(err)


def test_a_fine_grid_is_counted_not_listed() -> None:
    err = _error(_spec(strategy="grid", parameters={"x": {"min": 0.0, "max": 1.0, "step": 1e-12}}))
    assert "the grid has 1,000,000,000,001 points, more than the cap of 100,000" in str(err)


def test_a_range_sweep_is_counted_before_it_is_listed() -> None:
    parameters = {f"p{i}": {"type": "int", "min": 0, "max": 200} for i in range(600)}
    err = _error(_spec(strategy="range", parameters=parameters))
    assert "a sweep of 120,600 values is more than the cap of 100,000" in str(err)


def test_differential_evolution_population_has_an_upper_bound() -> None:
    err = _error(_spec(strategy={"name": "de", "population": 10**8},
                       parameters={"x": {"min": 0.0, "max": 1.0}}))
    assert err.path == "strategy.population"


# -- messages ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "value"), [("mode", "x" * 10_000_000), ("name", "n" * 10_000),
                                              ("metric", ["m"] * 100_000)])
def test_errors_quote_at_most_about_80_characters(field: str, value: Any) -> None:
    message = str(_error(_spec(**{field: value})))
    assert len(message) < 500
    assert "…" in message
    size = f"{len(value):,} {'characters' if isinstance(value, str) else 'items'}"
    assert size in message


def test_long_paths_and_allowed_lists_are_cut_too() -> None:
    err = SpecError("parameters." + "p" * 5_000, "is bad", allowed=", ".join(["v"] * 5_000),
                    suggestion="s" * 500)
    assert len(str(err)) < 2 * MAX_QUOTE_CHARS + 4 * MAX_QUOTE_CHARS
    assert err.path == "parameters." + "p" * 5_000  # the field itself is kept whole


def test_a_huge_integer_is_described_not_printed() -> None:
    assert "<an integer of about" in str(SpecError("trials", "too big", value=10**10_000))


# -- finite doubles ---------------------------------------------------------------------------------
def test_a_range_whose_width_overflows_is_refused() -> None:
    err = _error(_spec(parameters={"x": {"min": -1e308, "max": 1e308}}))
    assert err.path == "parameters.x.max"
    assert "overflows a double" in str(err)


def test_a_wide_but_finite_range_samples_finite_values() -> None:
    parameter = parse_spec(_spec(parameters={"x": {"min": 0.0, "max": 1e308}})).space["x"]
    rng = np.random.default_rng(0)
    assert all(np.isfinite(parameter.sample(rng)) for _ in range(100))


@pytest.mark.parametrize(("definition", "path"), [
    ({"min": 0.0, "max": ".inf"}, "parameters.x.max"),
    ({"min": "nan", "max": 1.0}, "parameters.x.min"),
    ({"distribution": "normal", "mu": 0.0, "sigma": 1e308}, "parameters.x.sigma"),
    ({"distribution": "logNormal", "mu": 0.0, "sigma": 1000.0}, "parameters.x.sigma"),
    ({"min": 0.0, "max": 1.0, "step": 1e-17}, "parameters.x.step"),
    ({"min": 0.0, "max": 10**400}, "parameters.x.max"),
])
def test_infinite_or_overflowing_doubles_are_refused(definition: dict[str, Any], path: str) -> None:
    assert _error(_spec(parameters={"x": definition})).path == path


def test_infinite_bounds_built_in_python_are_refused() -> None:
    with pytest.raises(SpecError, match=r"parameters\.x\.min: must be a finite number"):
        FloatParameter("x", low=float("-inf"), high=1.0)


def test_a_bounded_log_normal_with_a_wide_sigma_is_fine() -> None:
    spec = parse_spec(_spec(parameters={"x": {"distribution": "logNormal", "mu": 0.0, "sigma": 1000.0,
                                              "min": 1e-5, "max": 10.0}}))
    value = spec.space["x"].sample(np.random.default_rng(0))
    assert 1e-5 <= value <= 10.0


# -- names ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "problem"), [
    ("", "must not be empty"), (".", "'.' or '..'"), ("..", "'.' or '..'"),
    ("-rf", "must not start with '-'"),
    ("a/b", "path separator"), ("a\\b", "path separator"), ("a\nb", "control characters"),
    ("a b", "may only contain"), ("x" * (MAX_NAME_LENGTH + 1), "more than the limit of 128"), (7, "string"),
])
def test_the_name_rule(name: Any, problem: str) -> None:
    with pytest.raises(SpecError, match=re.escape(problem)):
        check_experiment_name(name)
    assert problem.split("'")[0] in str(_error(_spec(name=name)))


@pytest.mark.parametrize("name", ["mlp-lr.v2", "_scratch", "x" * MAX_NAME_LENGTH, "2024.01"])
def test_valid_names(name: str) -> None:
    assert check_experiment_name(name) == name
    assert parse_spec(_spec(name=name)).name == name


def test_the_name_rule_names_the_field() -> None:
    with pytest.raises(SpecError, match=r"^--name: "):
        check_experiment_name("..", field="--name")


# -- durations --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "seconds"), [("90s", 90.0), ("30m", 1800.0), ("2h", 7200.0),
                                               ("1h30m", 5400.0), ("1h 30m", 5400.0), (90, 90.0),
                                               (2.5, 2.5), ("45", 45.0), ("1d", 86400.0), ("1.5h", 5400.0)])
def test_durations(text: Any, seconds: float) -> None:
    assert parse_duration(text, "timeout") == seconds


@pytest.mark.parametrize(("value", "problem"), [
    (-5, "more than 0"), (0, "more than 0"), ("0s", "more than 0"), ("5x", "is not a duration"),
    ("h", "is not a duration"), ("", "is not a duration"), (True, "is not a duration"),
    ([1], "is not a duration"), (MAX_DURATION + 1, "longer than the limit of 30d"), ("31d", "30d"),
    (10**400, "longer than the limit"),
])
def test_bad_durations(value: Any, problem: str) -> None:
    err = _error(_spec(trial_timeout=value))
    assert err.path == "trial_timeout"
    assert problem in str(err)
    assert "90s, 30m, 2h, 1h30m" in str(err)


def test_describe_duration() -> None:
    assert [describe_duration(s) for s in (300, 90, 7200, 5400, 1.5, 86400)] == \
        ["5m", "90s", "2h", "90m", "1.5s", "1d"]


def test_timeouts_round_trip() -> None:
    spec = parse_spec("metric: loss\ntimeout: 2h\ntrial_timeout: 90s\nparameters: {a: [1, 2]}\n")
    assert (spec.timeout, spec.trial_timeout) == (7200.0, 90.0)
    assert parse_spec(spec.to_dict()) == spec


def test_old_stored_specs_without_timeouts_still_parse() -> None:
    stored = parse_spec(_spec()).to_dict()
    del stored["timeout"], stored["trial_timeout"]
    spec = parse_spec(stored)
    assert spec.timeout is None and spec.trial_timeout is None


# -- files ------------------------------------------------------------------------------------------
def test_read_spec_file(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_bytes("\ufeffmetric: loss # é\n".encode())
    assert read_spec_file(good) == "metric: loss # é\n"


@pytest.mark.parametrize(("content", "problem"), [
    (None, "no such file"), (b"metric: caf\xe9\n", "is not UTF-8 text (byte 0xe9 at offset 11)"),
    (b"#" * (MAX_SPEC_BYTES + 1), "1,048,577 bytes or more, more than the limit of 1,048,576 bytes"),
])
def test_read_spec_file_errors_name_the_file(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "spec.yaml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SpecError) as caught:
        read_spec_file(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)


def test_read_spec_file_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="is a directory"):
        read_spec_file(tmp_path)
