"""The fixed strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FixedParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.fixed import FixedStrategy
from hpnb.testing import StrategySuite


class TestFixedSuite(StrategySuite):
    strategy = "fixed"
    seeded = False





def _space() -> SearchSpace:
    return SearchSpace((
        FloatParameter("lr", "logUniform", low=1e-4, high=1e-1, default=0.01),
        IntParameter("layers", 1, 4),
        CategoricalParameter("optimizer", ("sgd", "adam")),
        FixedParameter("batch", 64),
    ))


def test_without_configs_one_trial_at_the_center() -> None:
    strategy = FixedStrategy(_space())
    first = strategy.suggest(0)
    assert first is not None
    assert first.params == {"lr": 0.01, "layers": 3, "optimizer": "sgd", "batch": 64}
    assert strategy.suggest(1) is None


def test_configs_run_in_order_and_are_completed_from_the_center() -> None:
    strategy = FixedStrategy(_space(), configs=[{"lr": 0.001, "optimizer": "adam"}, {"layers": 4}])
    assert strategy.max_trials() == 2
    params = [strategy.suggest(i).params for i in range(2)]  # type: ignore[union-attr]
    assert params == [
        {"lr": 0.001, "layers": 3, "optimizer": "adam", "batch": 64},
        {"lr": 0.01, "layers": 4, "optimizer": "sgd", "batch": 64},
    ]


@pytest.mark.parametrize(("configs", "path"), [
    ([{"lr": 0.001}, {"lr": 0.5}], "strategy.configs[1].lr"),
    ([{"layers": 2.5}], "strategy.configs[0].layers"),
    ([{"optimizer": "adamw"}], "strategy.configs[0].optimizer"),
    ([{"batch": 32}], "strategy.configs[0].batch"),
    ([{}, {}, {"layer": 3}], "strategy.configs[2].layer"),
    ([5], "strategy.configs[0]"),
    ([], "strategy.configs"),
    ({"lr": 0.01}, "strategy.configs"),
])
def test_bad_configs_are_refused_with_their_path(configs: object, path: str) -> None:
    with pytest.raises(SpecError) as info:
        FixedStrategy(_space(), configs=configs)
    assert info.value.path == path


def test_a_misspelled_name_gets_a_suggestion() -> None:
    with pytest.raises(SpecError) as info:
        FixedStrategy(_space(), configs=[{"layer": 3}])
    assert info.value.suggestion == "layers"
