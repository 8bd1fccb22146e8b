"""PBT explore: perturbations by hand, bounds, steps, categorical neighbours, resampling."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    Parameter,
    SearchSpace,
)
from hpnb.core.strategies.pbt_explore import perturb, perturb_value, resample

UP, DOWN = (1.2,), (0.8,)
RNG = np.random.default_rng(0)
UNIT = FloatParameter("x", "uniform", low=0.3, high=1.0)


@pytest.mark.parametrize(("param", "value", "factors", "expected"), [
    (UNIT, 0.5, UP, 0.6),                   # 0.5 * 1.2
    (UNIT, 0.5, DOWN, 0.4),                 # 0.5 * 0.8
    (UNIT, 0.9, UP, 1.0),                   # 1.08 clipped to max
    (UNIT, 0.35, DOWN, 0.3),                # 0.28 clipped to min
    (FloatParameter("lr", "logUniform", low=1e-5, high=1e-1), 1e-3, UP, 1.2e-3),
    (FloatParameter("m", "uniform", low=0.8, high=0.99, step=0.01), 0.9, UP, 0.99),   # 1.08 -> max
    (FloatParameter("m", "uniform", low=0.8, high=0.99, step=0.01), 0.9, DOWN, 0.8),  # .72 -> min
    (FloatParameter("p", "uniform", low=0.0, high=1.0, step=0.1), 0.3, UP, 0.4),      # .36 -> on step .4
    (FloatParameter("p", "uniform", low=0.0, high=1.0, step=0.1), 0.1, UP, 0.2),      # .12 -> .1: step up
    (IntParameter("layers", 1, 4), 1, UP, 2),      # 1.2 rounds back to 1: one step up instead
    (IntParameter("layers", 1, 4), 4, UP, 4),      # one step up would leave the range
    (IntParameter("layers", 1, 4), 3, DOWN, 2),    # 2.4 -> 2
    (IntParameter("width", 2, 10, step=2), 6, UP, 8),   # 7.2 -> nearest on the step grid: 8
    (FloatParameter("d", "normal", mu=0.0, sigma=1.0), -0.5, UP, -0.6),   # unbounded: multiplied
    (FloatParameter("d", "normal", mu=0.0, sigma=1.0), 0.0, UP, 0.0),     # zero stays zero
    (FixedParameter("batch", 64), 64, UP, 64),
])
def test_perturb_by_hand(param: Parameter, value: float, factors: tuple[float], expected: float) -> None:
    result = perturb_value(param, value, RNG, factors)
    assert result == pytest.approx(expected)
    assert param.contains(result)
    if isinstance(param, IntParameter):
        assert isinstance(result, int)


def test_factor_is_drawn_from_the_factors() -> None:
    rng = np.random.default_rng(1)
    results = Counter(round(perturb_value(UNIT, 0.5, rng), 9) for _ in range(400))
    assert set(results) == {0.4, 0.6}
    assert 150 < results[0.4] < 250


def test_categorical_moves_to_a_neighbour() -> None:
    param = CategoricalParameter("opt", ("sgd", "adam", "rmsprop", "adagrad"))
    rng = np.random.default_rng(2)
    assert {perturb_value(param, "sgd", rng) for _ in range(50)} == {"adam"}        # first: only neighbour
    assert {perturb_value(param, "adagrad", rng) for _ in range(50)} == {"rmsprop"}  # last: only neighbour
    moves = Counter(perturb_value(param, "adam", rng) for _ in range(400))
    assert set(moves) == {"sgd", "rmsprop"} and 150 < moves["sgd"] < 250
    assert perturb_value(CategoricalParameter("one", ("a",)), "a", rng) == "a"


def test_perturb_keeps_every_value_in_the_space() -> None:
    space = SearchSpace((
        FloatParameter("lr", "logUniform", low=1e-5, high=1e-1),
        FloatParameter("momentum", "uniform", low=0.8, high=0.99, step=0.01),
        IntParameter("layers", 1, 4),
        CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
        FloatParameter("dropout", "normal", mu=0.3, sigma=0.1, low=0.0, high=0.9),
        FixedParameter("batch", 64),
    ))
    rng = np.random.default_rng(3)
    config = space.sample(rng)
    for _ in range(300):
        config = perturb(space, config, rng)
        assert space.contains(config), config
        assert config["batch"] == 64


def test_resample_redraws_from_the_prior_with_its_probability() -> None:
    space = SearchSpace((UNIT, FloatParameter("y", "uniform", low=0.0, high=1.0)))
    # probability 1: each parameter draws rng.random() (< 1: resample) and then its prior's draw
    rng, replay = np.random.default_rng(4), np.random.default_rng(4)
    expected = {}
    for p in space:
        replay.random()
        expected[p.name] = p.from_unit(float(replay.random()))
    assert resample(space, {"x": 0.5, "y": 0.5}, rng, probability=1.0) == expected
    # factor 1 leaves a perturbed value as it is: what changes was resampled
    changed = sum(value != 0.5 for _ in range(1000)
                  for value in resample(space, {"x": 0.5, "y": 0.5}, rng, factors=(1.0,),
                                        probability=0.25).values())
    assert 400 < changed < 600   # 2000 parameters, 25 % of them
