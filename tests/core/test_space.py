"""Search spaces: unit tests and property tests of sampling, grids and the unit-cube mapping."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hpnb.core.errors import SpecError
from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    Parameter,
    SearchSpace,
    parameter_from_dict,
)

STEPS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


def _steps(limit: float) -> st.SearchStrategy[float | None]:
    """No step, or a round step no larger than ``limit``."""
    fitting = [s for s in STEPS if s <= limit]
    return st.one_of(st.none(), st.sampled_from(fitting)) if fitting else st.none()


@st.composite
def uniform_parameters(draw: st.DrawFn) -> FloatParameter:
    low = round(draw(st.floats(-1000.0, 1000.0)), 3)
    high = round(low + draw(st.floats(0.01, 1000.0)), 3)
    return FloatParameter("u", "uniform", low=low, high=high, step=draw(_steps(high - low)))


@st.composite
def log_uniform_parameters(draw: st.DrawFn) -> FloatParameter:
    low = draw(st.floats(1e-6, 100.0))
    high = low * draw(st.floats(1.01, 1e4))
    step = draw(_steps(high - low))
    return FloatParameter("lu", "logUniform", low=low, high=high, step=step)


@st.composite
def normal_parameters(draw: st.DrawFn) -> FloatParameter:
    log = draw(st.booleans())
    mu = draw(st.floats(-3.0, 3.0) if log else st.floats(-100.0, 100.0))
    sigma = draw(st.floats(0.01, 2.0) if log else st.floats(0.01, 100.0))
    low = high = step = None
    if draw(st.booleans()):  # truncated, maybe with a step
        centre = math.exp(mu) if log else mu
        spread = (math.exp(mu + 2 * sigma) - centre) if log else 2 * sigma
        low = centre - draw(st.floats(0.0, 0.9)) * (centre if log else spread)
        high = centre + draw(st.floats(0.1, 1.0)) * spread
        step = draw(_steps(high - low))
    return FloatParameter("n", "logNormal" if log else "normal", low=low, high=high, mu=mu, sigma=sigma,
                          step=step)


@st.composite
def int_parameters(draw: st.DrawFn) -> IntParameter:
    log = draw(st.booleans())
    low = draw(st.integers(1, 1000) if log else st.integers(-1000, 1000))
    high = low + draw(st.integers(1, 5000))
    step = draw(st.integers(1, high - low))
    return IntParameter("i", low, high, step=step, log=log)


categorical_parameters = st.lists(
    st.one_of(st.text(max_size=5), st.integers(-5, 5)), min_size=1, max_size=6, unique=True,
).map(lambda values: CategoricalParameter("c", tuple(values)))
fixed_parameters = st.one_of(st.integers(), st.text(max_size=5)).map(lambda v: FixedParameter("f", v))
ordinal_parameters = st.lists(
    st.one_of(st.integers(-1000, 1000), st.floats(-1e3, 1e3).map(lambda v: round(v, 4)),
              st.floats(1e-8, 1e4)),
    min_size=2, max_size=12, unique_by=float,
).map(lambda values: OrdinalParameter("o", tuple(values)))
any_parameter = st.one_of(uniform_parameters(), log_uniform_parameters(), normal_parameters(),
                          int_parameters(), categorical_parameters, fixed_parameters, ordinal_parameters)


def _short_grid(p: FloatParameter) -> bool:
    size = p.grid_size()
    return size is not None and size <= 2000


finite_parameter: st.SearchStrategy[Parameter] = st.one_of(
    int_parameters(), categorical_parameters, fixed_parameters, uniform_parameters().filter(_short_grid),
    ordinal_parameters)


def _renamed(parameters: list[Parameter]) -> SearchSpace:
    renamed = []
    for i, p in enumerate(parameters):
        data = p.to_dict()
        renamed.append(parameter_from_dict(f"p{i}", data))
    return SearchSpace(tuple(renamed))


spaces = st.lists(any_parameter, min_size=1, max_size=5).map(_renamed)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- property tests ---------------------------------------------------------------------
@SETTINGS
@given(spaces, st.integers(0, 2**32 - 1))
def test_every_sample_lies_in_its_space_and_on_its_step(space: SearchSpace, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        config = space.sample(rng)
        assert space.contains(config), config


@SETTINGS
@given(any_parameter, st.floats(0.0, 1.0))
def test_every_unit_position_maps_into_the_parameter(parameter: Parameter, u: float) -> None:
    value = parameter.from_unit(u)
    assert parameter.contains(value), value
    assert 0.0 <= parameter.to_unit(value) <= 1.0


@SETTINGS
@given(spaces, st.integers(0, 2**32 - 1))
def test_same_seed_same_samples(space: SearchSpace, seed: int) -> None:
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    assert [space.sample(a) for _ in range(5)] == [space.sample(b) for _ in range(5)]


@SETTINGS
@given(st.lists(finite_parameter, min_size=1, max_size=3).map(_renamed))
def test_grid_has_the_product_of_the_axes_distinct_points(space: SearchSpace) -> None:
    sizes = [p.grid_size() for p in space]
    assert space.grid_size() == math.prod(s for s in sizes if s is not None)
    assume(space.grid_size() <= 20_000)
    points = list(space.iter_grid())
    assert len(points) == space.grid_size()
    assert len({tuple(repr(v) for v in p.values()) for p in points}) == len(points)
    assert all(space.contains(p) for p in points)


@SETTINGS
@given(finite_parameter, st.data())
def test_unit_round_trip_is_exact_on_grid_values(parameter: Parameter, data: st.DataObject) -> None:
    values = parameter.grid_values()
    assert values is not None
    value = data.draw(st.sampled_from(values))
    back = parameter.from_unit(parameter.to_unit(value))
    assert back == value and type(back) is type(value)


@SETTINGS
@given(ordinal_parameters, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_an_ordered_list_keeps_its_order_on_the_unit_interval(parameter: OrdinalParameter, u: float,
                                                                v: float) -> None:
    positions = [parameter.to_unit(value) for value in parameter.values]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert positions[0] > 0.0 and positions[-1] < 1.0
    low, high = sorted((u, v))
    assert parameter.from_unit(low) <= parameter.from_unit(high)


@given(ordinal_parameters)
def test_an_ordered_list_draws_each_value_by_its_stretch_of_the_interval(parameter: OrdinalParameter) -> None:
    """Evenly spaced values (on their scale) are equally likely, as an integer's are."""
    draws = [parameter.from_unit((k + 0.5) / 2000) for k in range(2000)]
    shares = [draws.count(value) / 2000 for value in parameter.values]
    assert all(share > 0 for share in shares)
    if parameter.evenly_spaced:
        assert max(shares) - min(shares) <= 2 / 2000 + 1e-9


@given(st.one_of(uniform_parameters(), log_uniform_parameters(), normal_parameters()), st.floats(0.0, 1.0))
def test_unit_round_trip_of_floats(parameter: FloatParameter, u: float) -> None:
    value = parameter.from_unit(u)
    back = parameter.from_unit(parameter.to_unit(value))
    if parameter.step is not None:
        assert back == value
    else:
        assert back == pytest.approx(value, rel=1e-6, abs=1e-9)


@SETTINGS
@given(spaces, st.integers(0, 2**32 - 1))
def test_space_unit_round_trip(space: SearchSpace, seed: int) -> None:
    config = space.sample(np.random.default_rng(seed))
    point = space.to_unit(config)
    assert point.shape == (space.dimension,)
    back = space.from_unit(point)
    assert set(back) == set(config)
    for name, value in config.items():
        if isinstance(value, float) and space[name].grid_size() is None:
            assert back[name] == pytest.approx(value, rel=1e-6, abs=1e-9)
        else:
            assert back[name] == value


@SETTINGS
@given(any_parameter)
def test_description_round_trip(parameter: Parameter) -> None:
    assert parameter_from_dict(parameter.name, parameter.to_dict()) == parameter


# -- unit tests --------------------------------------------------------------------------
def test_distributions_have_the_right_shape() -> None:
    rng = np.random.default_rng(0)
    lr = FloatParameter("lr", "logUniform", low=1e-5, high=1e-1)
    logs = np.log10([lr.sample(rng) for _ in range(4000)])
    assert np.mean(logs) == pytest.approx(-3.0, abs=0.1)
    dropout = FloatParameter("dropout", "normal", mu=0.3, sigma=0.1)
    draws = np.array([dropout.sample(rng) for _ in range(4000)])
    assert np.mean(draws) == pytest.approx(0.3, abs=0.01)
    assert np.std(draws) == pytest.approx(0.1, abs=0.01)
    bounded = FloatParameter("b", "normal", mu=0.0, sigma=1.0, low=0.0)
    assert min(bounded.sample(rng) for _ in range(500)) >= 0.0


def test_int_values_are_equally_likely() -> None:
    rng = np.random.default_rng(1)
    layers = IntParameter("layers", 1, 4)
    counts = np.bincount([layers.sample(rng) for _ in range(4000)], minlength=5)[1:]
    assert counts.min() > 900


def test_steps_and_grids() -> None:
    momentum = FloatParameter("momentum", low=0.8, high=0.99, step=0.01)
    assert momentum.grid_values() == tuple(round(0.8 + 0.01 * k, 2) for k in range(20))
    assert momentum.contains(0.85) and not momentum.contains(0.855)
    assert IntParameter("batch", 16, 64, step=16).grid_values() == (16, 32, 48, 64)
    assert FloatParameter("lr", "logUniform", low=1e-4, high=1e-1).grid_values() is None


def test_center_uses_defaults_then_the_middle() -> None:
    space = SearchSpace((
        FloatParameter("lr", "logUniform", low=1e-4, high=1e-2),
        IntParameter("layers", 1, 3),
        CategoricalParameter("optimizer", ("sgd", "adam"), default="adam"),
        FloatParameter("m", low=0.0, high=1.0, default=0.9),
        FixedParameter("batch", 64),
    ))
    assert space.center() == {"lr": pytest.approx(1e-3), "layers": 2, "optimizer": "adam", "m": 0.9,
                              "batch": 64}


def test_fixed_parameters_are_not_axes_of_the_unit_cube() -> None:
    space = SearchSpace((FixedParameter("batch", 64), IntParameter("layers", 1, 4)))
    assert space.dimension == 1
    assert space.from_unit([0.99]) == {"batch": 64, "layers": 4}
    with pytest.raises(ValueError, match="dimension 1"):
        space.from_unit([0.5, 0.5])


def test_contains_rejects_wrong_names_and_types() -> None:
    space = SearchSpace((IntParameter("layers", 1, 4), CategoricalParameter("opt", ("sgd", "adam"))))
    assert space.contains({"layers": 2, "opt": "sgd"})
    assert not space.contains({"layers": 2})
    assert not space.contains({"layers": 2, "opt": "sgd", "extra": 1})
    assert not space.contains({"layers": 2.5, "opt": "sgd"})
    assert not space.contains({"layers": True, "opt": "sgd"})
    assert not space.contains({"layers": "2", "opt": "sgd"})


def test_grid_refuses_continuous_parameters_and_oversized_grids() -> None:
    fine = FloatParameter("lr", low=0.0, high=1e6, step=1e-6)
    assert fine.grid_size() == 10**12 + 1   # counted without listing the values
    with pytest.raises(SpecError, match="more than the cap"):
        next(SearchSpace((fine,)).iter_grid())
    with pytest.raises(SpecError) as info:
        SearchSpace((FloatParameter("lr", low=0.0, high=1.0),)).grid_size()
    assert info.value.path == "parameters.lr.step"
    huge = SearchSpace(tuple(IntParameter(f"p{i}", 0, 999) for i in range(5)))
    assert huge.grid_size() == 1000**5
    with pytest.raises(SpecError, match="more than the cap"):
        next(huge.iter_grid())


_UNKNOWN_DISTRIBUTION: Any = "gaussian"


@pytest.mark.parametrize(("build", "path"), [
    (lambda: FloatParameter("lr", _UNKNOWN_DISTRIBUTION, low=0.0, high=1.0), "parameters.lr.distribution"),
    (lambda: FloatParameter("lr", low=0.0), "parameters.lr.max"),
    (lambda: FloatParameter("lr", high=1.0), "parameters.lr.min"),
    (lambda: FloatParameter("lr", low=1.0, high=1.0), "parameters.lr.max"),
    (lambda: FloatParameter("lr", "logUniform", low=0.0, high=1.0), "parameters.lr.min"),
    (lambda: FloatParameter("lr", "normal", sigma=1.0), "parameters.lr.mu"),
    (lambda: FloatParameter("lr", "normal", mu=0.0), "parameters.lr.sigma"),
    (lambda: FloatParameter("lr", "normal", mu=0.0, sigma=0.0), "parameters.lr.sigma"),
    (lambda: FloatParameter("lr", low=0.0, high=1.0, step=0.0), "parameters.lr.step"),
    (lambda: FloatParameter("lr", low=0.0, high=1.0, step=2.0), "parameters.lr.step"),
    (lambda: FloatParameter("lr", low=0.0, high=1.0, default=2.0), "parameters.lr.default"),
    (lambda: IntParameter("n", 3, 3), "parameters.n.max"),
    (lambda: IntParameter("n", 1, 4, step=0), "parameters.n.step"),
    (lambda: IntParameter("n", 1, 4, step=5), "parameters.n.step"),
    (lambda: IntParameter("n", 0, 4, log=True), "parameters.n.min"),
    (lambda: IntParameter("n", 1, 4, default=7), "parameters.n.default"),
    (lambda: CategoricalParameter("c", ()), "parameters.c.list"),
    (lambda: CategoricalParameter("c", ("a", "a")), "parameters.c.list"),
    (lambda: CategoricalParameter("c", ("a", "b"), default="z"), "parameters.c.default"),
    (lambda: SearchSpace((FixedParameter("a", 1), FixedParameter("a", 2))), "parameters.a"),
])
def test_bad_constructions_name_the_path(build: Any, path: str) -> None:
    with pytest.raises(SpecError) as info:
        build()
    assert info.value.path == path
