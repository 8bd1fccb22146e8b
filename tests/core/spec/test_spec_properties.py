"""Properties of the spec parser: only SpecError escapes, valid specs round-trip, lines are kept."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.core.spec.yaml_lines import load_yaml

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.sampled_from(
        ["", "x", "1.0", "[0.1, 10]", "[1, 0]", "4Gi", "500m", "grid", "normal", "int", "asha"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["min", "max", "step", "type", "distribution", "list", "values", "mu", "sigma",
                         "name", "rule", "cpu", "memory", "workers", "limits", "requests", "range", "value"]),
        children, max_size=4),
    max_leaves=12,
)
TOP_KEYS = st.sampled_from(["metric", "mode", "strategy", "trials", "parallel", "seed", "parameters",
                            "early_stopping", "resources", "max_failures", "retries", "name",
                            "countOfSelections"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TOP_KEYS, json_values, max_size=6), st.booleans())
def test_any_mapping_gives_a_spec_or_a_spec_error(data: dict[str, Any], with_metric: bool) -> None:
    if with_metric:
        data = {**data, "metric": "loss"}
    try:
        spec = parse_spec(data)
    except SpecError as err:
        assert "could not be read" not in str(err)  # an internal error, wrapped
        return
    assert parse_spec(json.loads(json.dumps(spec.to_dict()))) == spec


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab:-[]{}, \n\"'#&*!1.", max_size=60))
def test_any_text_gives_a_spec_or_a_spec_error(text: str) -> None:
    try:
        parse_spec(text)
    except SpecError as err:
        assert "could not be read" not in str(err)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(deadline=None)
@given(low=finite, width=st.floats(1e-3, 1e6), steps=st.one_of(st.none(), st.integers(1, 50)),
       as_text=st.booleans())
def test_uniform_ranges_round_trip(low: float, width: float, steps: int | None, as_text: bool) -> None:
    high = low + width
    if not high > low:
        return
    definition: dict[str, Any] = {"type": "double", "min": low, "max": high}
    if steps is not None:
        definition["step"] = width / steps
    if as_text:
        definition = {key: repr(value) if isinstance(value, float) else value
                      for key, value in definition.items()}
    spec = parse_spec({"metric": "loss", "parameters": {"x": definition}})
    parameter = spec.space["x"]
    assert parameter.describe().startswith("uniform")
    assert parse_spec(spec.to_dict()) == spec


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma_1", "d"]), min_size=1, max_size=4, unique=True))
def test_every_key_line_is_recorded(names: list[str]) -> None:
    text = "parameters:\n" + "".join(f"  {name}:\n    min: 1\n    max: 2\n" for name in names)
    _, lines = load_yaml(text)
    for index, name in enumerate(names):
        assert lines.find(f"parameters.{name}") == 2 + 3 * index
        assert lines.find(f"parameters.{name}.max") == 4 + 3 * index
        assert lines.find(f"parameters.{name}.step") == 2 + 3 * index  # falls back to the parameter
