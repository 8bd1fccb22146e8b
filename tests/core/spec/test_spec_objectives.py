"""Several objectives in a spec: every accepted form, the round trip, and one clear error per mistake."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.objectives import Objective
from hpnb.core.spec import parse_spec

SPACE = "parameters:\n  x: {min: 0, max: 1}\n"
BOTH = (Objective("val_loss", "min"), Objective("latency_ms", "min"))


@pytest.mark.parametrize("text", [
    "metrics:\n  - {name: val_loss, mode: min}\n  - {name: latency_ms, mode: min}\n",
    "metrics:\n  - name: val_loss\n    mode: minimize\n  - name: latency_ms\n    mode: min\n",
    "metrics: {val_loss: min, latency_ms: min}\n",
    "metrics:\n  - val_loss: min\n  - latency_ms: min\n",
])
def test_every_form_of_several_objectives_reads_the_same(text: str) -> None:
    spec = parse_spec(text + SPACE)
    assert spec.objectives == BOTH
    assert spec.is_multi_objective
    assert (spec.metric, spec.mode) == ("val_loss", "min")


def test_several_objectives_round_trip_through_to_dict() -> None:
    spec = parse_spec("metrics: {val_loss: min, accuracy: max}\nstrategy: nsga2\n" + SPACE)
    assert spec.to_dict()["metrics"] == [{"name": "val_loss", "mode": "min"},
                                         {"name": "accuracy", "mode": "max"}]
    assert "metric" not in spec.to_dict()
    assert parse_spec(spec.to_dict()) == spec


def test_metrics_of_one_entry_is_the_single_objective_form() -> None:
    one = parse_spec("metrics: [{name: loss, mode: max}]\n" + SPACE)
    assert not one.is_multi_objective
    assert one == parse_spec("metric: loss\nmode: max\n" + SPACE)


def test_a_single_metric_keeps_its_form() -> None:
    spec = parse_spec("metric: loss\n" + SPACE)
    assert spec.objectives == (Objective("loss", "min"),)
    assert spec.to_dict()["metric"] == "loss" and "metrics" not in spec.to_dict()


# (id, spec text, field path, fragment of the message, line)
CASES = [
    ("mode-missing-for-one", "metrics:\n  - {name: val_loss, mode: min}\n  - {name: latency_ms}\n",
     "metrics[1].mode", "'latency_ms' is minimised or maximised", 3),
    ("bare-names", "metrics: [val_loss, latency_ms]\n", "metrics[0].mode", "allowed: {name: val_loss", 1),
    ("duplicate-name", "metrics:\n  - {name: a, mode: min}\n  - {name: a, mode: max}\n", "metrics[1].name",
     "names a metric twice (got 'a')", 3),
    ("unknown-mode", "metrics: {a: min, b: maxi}\n", "metrics.b", "did you mean 'max'", 1),
    ("metric-and-metrics", "metric: a\nmetrics: {a: min, b: min}\n", "metrics", "not both", 2),
    ("mode-with-metrics", "metrics: {a: min, b: min}\nmode: max\n", "mode",
     "each metric names its own mode", 2),
    ("empty", "metrics: []\n", "metrics", "is empty", 1),
    ("not-a-list", "metrics: val_loss\n", "metrics", "must be a list or a mapping", 1),
    ("unknown-key", "metrics:\n  - {name: a, mode: min, goal: 1}\n  - {name: b, mode: min}\n",
     "metrics[0].goal", "unknown key", 2),
    ("name-missing", "metrics:\n  - {mode: min, other: 1}\n  - {name: b, mode: min}\n", "metrics[0].other",
     "unknown key", 2),
    ("single-objective-strategy", "metrics: {a: min, b: min}\nstrategy: cmaes\nparameters:\n"
     "  x: {min: 0, max: 1}\n  y: {min: 0, max: 1}\n", "strategy", "allowed: fixed, grid, range, random", 2),
    ("pbt", "metrics: {a: min, b: max}\nstrategy: pbt\n", "strategy", "nsga2 and tpe learn from all", 2),
]


@pytest.mark.parametrize(("text", "path", "fragment", "line"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_each_mistake_is_one_error_naming_the_field_and_line(text: str, path: str, fragment: str,
                                                            line: int) -> None:
    source = text if "parameters:" in text else text + SPACE
    with pytest.raises(SpecError) as info:
        parse_spec(source)
    assert info.value.path == path
    assert fragment in str(info.value)
    assert info.value.line == line


def test_too_many_objectives_are_refused_before_anything_runs() -> None:
    many = {f"m{i}": "min" for i in range(17)}
    with pytest.raises(SpecError, match="more than the limit of 16"):
        parse_spec({"metrics": many, "parameters": {"x": [1, 2]}})
