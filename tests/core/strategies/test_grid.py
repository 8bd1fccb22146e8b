"""The grid strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.grid import GridStrategy
from hpnb.testing import StrategySuite


class TestGridSuite(StrategySuite):
    strategy = "grid"
    finite_only = True
    seeded = False





def _space() -> SearchSpace:
    return SearchSpace((
        FloatParameter("momentum", low=0.8, high=0.9, step=0.05),
        IntParameter("layers", 1, 2),
        CategoricalParameter("optimizer", ("sgd", "adam")),
    ))


def _all(strategy: GridStrategy) -> list[tuple[object, ...]]:
    out = []
    trial_id = 0
    while (suggestion := strategy.suggest(trial_id)) is not None:
        out.append(tuple(suggestion.params.values()))
        trial_id += 1
    return out


def test_every_combination_once_last_parameter_fastest() -> None:
    points = _all(GridStrategy(_space()))
    assert points == [tuple(c.values()) for c in _space().iter_grid()]
    assert points[:3] == [(0.8, 1, "sgd"), (0.8, 1, "adam"), (0.8, 2, "sgd")]
    assert len(set(points)) == 12


def test_shuffle_is_a_seeded_permutation_of_the_grid() -> None:
    ordered = _all(GridStrategy(_space()))
    shuffled = _all(GridStrategy(_space(), seed=3, shuffle=True))
    assert shuffled != ordered
    assert sorted(shuffled, key=repr) == sorted(ordered, key=repr)
    assert _all(GridStrategy(_space(), seed=3, shuffle=True)) == shuffled


def test_continuous_parameter_without_step_is_refused() -> None:
    space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),))
    with pytest.raises(SpecError) as info:
        GridStrategy(space)
    assert info.value.path == "parameters.lr.step"


def test_grid_above_the_cap_is_refused_before_enumeration() -> None:
    space = SearchSpace(tuple(IntParameter(f"p{i}", 0, 99) for i in range(6)))  # 10**12 points
    with pytest.raises(SpecError, match="1,000,000,000,000 points"):
        GridStrategy(space)
    with pytest.raises(SpecError) as info:
        GridStrategy(_space(), cap=10)
    assert info.value.path == "strategy"


def test_bad_shuffle_option() -> None:
    with pytest.raises(SpecError) as info:
        GridStrategy(_space(), shuffle="yes")
    assert info.value.path == "strategy.shuffle"
