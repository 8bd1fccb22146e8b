"""The range strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FixedParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.range import RangeStrategy
from hpnb.testing import StrategySuite


class TestRangeSuite(StrategySuite):
    strategy = "range"
    finite_only = True
    seeded = False





def _sweep(strategy: RangeStrategy) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    while (suggestion := strategy.suggest(len(out))) is not None:
        out.append(suggestion.params)
    return out


def test_single_parameter_sweep_covers_its_range_with_its_step() -> None:
    space = SearchSpace((FloatParameter("lr", low=0.1, high=0.5, step=0.1), FixedParameter("batch", 64)))
    assert [c["lr"] for c in _sweep(RangeStrategy(space))] == [0.1, 0.2, 0.3, 0.4, 0.5]


def test_one_factor_at_a_time_in_declared_order_center_once() -> None:
    space = SearchSpace((
        IntParameter("layers", 1, 3),
        FloatParameter("momentum", low=0.8, high=0.9, step=0.05),
        CategoricalParameter("optimizer", ("sgd", "adam")),
    ))
    sweep = [tuple(c.values()) for c in _sweep(RangeStrategy(space))]
    assert sweep == [
        (1, 0.85, "sgd"), (2, 0.85, "sgd"), (3, 0.85, "sgd"),   # layers; the center is (2, 0.85, sgd)
        (2, 0.8, "sgd"), (2, 0.9, "sgd"),                       # momentum, center not repeated
        (2, 0.85, "adam"),                                      # optimizer
    ]


def test_defaults_are_the_held_values() -> None:
    space = SearchSpace((IntParameter("layers", 1, 3, default=3), IntParameter("units", 8, 10)))
    sweep = _sweep(RangeStrategy(space, parameter="units"))
    assert sweep == [{"layers": 3, "units": 8}, {"layers": 3, "units": 9}, {"layers": 3, "units": 10}]


def test_continuous_parameter_without_step_cannot_be_swept() -> None:
    lr = FloatParameter("lr", "logUniform", low=1e-4, high=0.1)
    space = SearchSpace((IntParameter("layers", 1, 3), lr))
    with pytest.raises(SpecError) as info:
        RangeStrategy(space)
    assert info.value.path == "parameters.lr.step"
    # ... but it may be held still while another parameter is swept.
    assert len(_sweep(RangeStrategy(space, parameter="layers"))) == 3


def test_nothing_to_sweep_is_refused() -> None:
    space = SearchSpace((FixedParameter("batch", 64),))
    with pytest.raises(SpecError) as info:
        RangeStrategy(space)
    assert info.value.path == "parameters"


@pytest.mark.parametrize(("name", "problem"), [("layer", "not a parameter"), ("batch", "fixed")])
def test_bad_parameter_option(name: str, problem: str) -> None:
    space = SearchSpace((IntParameter("layers", 1, 3), FixedParameter("batch", 64)))
    with pytest.raises(SpecError, match=problem) as info:
        RangeStrategy(space, parameter=name)
    assert info.value.path == "strategy.parameter"


def test_a_sweep_of_too_many_values_is_refused() -> None:
    space = SearchSpace((FloatParameter("lr", low=0.0, high=1e6, step=1e-6),))
    with pytest.raises(SpecError, match="more than the cap") as info:
        RangeStrategy(space)
    assert info.value.path == "parameters.lr.step"
