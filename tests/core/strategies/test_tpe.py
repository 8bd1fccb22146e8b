"""The tpe strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import warnings
from typing import Any

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.optuna_params import optuna_distribution
from hpnb.core.strategies.tpe import TPEStrategy
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite


class TestTPESuite(StrategySuite):
    strategy = "tpe"
    optimises = True






@pytest.mark.parametrize(("parameter", "expected", "unit"), [
    (FloatParameter("a", low=0.0, high=1.0), FloatDistribution(0.0, 1.0), False),
    (FloatParameter("a", low=0.0, high=1.0, step=0.3), FloatDistribution(0.0, 0.9, step=0.3), False),
    (FloatParameter("a", "logUniform", low=1e-3, high=1.0), FloatDistribution(1e-3, 1.0, log=True), False),
    (FloatParameter("a", "logUniform", low=0.1, high=1.0, step=0.1), FloatDistribution(0.0, 1.0), True),
    (FloatParameter("a", "normal", mu=0.0, sigma=1.0), FloatDistribution(0.0, 1.0), True),
    (FloatParameter("a", "logNormal", mu=0.0, sigma=1.0, low=0.5), FloatDistribution(0.0, 1.0), True),
    (IntParameter("a", 1, 10, step=3), IntDistribution(1, 10, step=3), False),
    (IntParameter("a", 2, 64, log=True), IntDistribution(2, 64, log=True), False),
    (IntParameter("a", 2, 64, step=2, log=True), FloatDistribution(0.0, 1.0), True),
    (CategoricalParameter("a", ("x", 2, None)), CategoricalDistribution((0, 1, 2)), False),
])
def test_distribution_mapping(parameter: object, expected: object, unit: bool) -> None:
    assert optuna_distribution(parameter) == (expected, unit)  # type: ignore[arg-type]


def test_same_values_as_optunas_own_sampler(optuna_values: Any, strategy_values: Any) -> None:
    ours = strategy_values(TPEStrategy, 25, seed=4)
    assert ours == optuna_values(optuna.samplers.TPESampler(seed=4), 25)


def _told(strategy: TPEStrategy) -> list[tuple[str, float | None, dict[int, float]]]:
    """What the strategy's Optuna study holds of each trial: state, value, intermediate values."""
    return [(t.state.name, t.value, dict(t.intermediate_values)) for t in strategy._study.get_trials()]


def test_results_are_told_with_the_right_state_live_and_rebuilt() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    strategy = TPEStrategy(space, seed=0, mode="max")
    for tid in range(5):
        strategy.suggest(tid)
    strategy.report(0, 0, 0.2)
    strategy.report(0, 1, 0.3)
    strategy.observe(0, 0.35, TrialState.STOPPED)
    strategy.observe(1, None, TrialState.FAILED)
    strategy.observe(2, float("inf"))
    strategy.observe(3, 0.9)
    strategy.report(4, 0, 0.1)
    expected = [("PRUNED", 0.35, {0: 0.2, 1: 0.3, 2: 0.35}), ("FAIL", None, {}), ("FAIL", None, {}),
                ("COMPLETE", 0.9, {}), ("RUNNING", None, {0: 0.1})]
    assert _told(strategy) == expected
    params = [{"x": p} for p in (0.1, 0.2, 0.3, 0.4, 0.5)]
    rebuilt = TPEStrategy(space, seed=0, mode="max")
    rebuilt.rebuild([TrialHistory(0, params[0], TrialState.STOPPED, 0.35, {0: 0.2, 1: 0.3}),
                     TrialHistory(1, params[1], TrialState.FAILED),
                     TrialHistory(2, params[2], TrialState.COMPLETED, float("inf")),
                     TrialHistory(3, params[3], TrialState.COMPLETED, 0.9),
                     TrialHistory(4, params[4], TrialState.RUNNING, 0.1, {0: 0.1})])
    assert _told(rebuilt) == expected
    assert [t.params for t in rebuilt._study.get_trials()] == params
    rebuilt.report(4, 1, 0.2)
    rebuilt.observe(4, 0.3, TrialState.STOPPED)
    assert _told(rebuilt)[-1] == ("PRUNED", 0.3, {0: 0.1, 1: 0.2, 2: 0.3})


def test_state_is_the_seed_and_a_count() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    strategy = TPEStrategy(space, seed=3)
    for tid in range(20):
        strategy.observe(tid, strategy.suggest(tid).params["x"])  # type: ignore[union-attr]
    assert strategy.state_dict() == {"strategy": "tpe", "seed": 3, "suggested": 20}


def test_optuna_stays_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0), CategoricalParameter("c", ("a", "b"))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strategy = TPEStrategy(space, seed=0, multivariate=True, group=True, n_startup_trials=2)
        for tid in range(5):
            strategy.suggest(tid)
            strategy.observe(tid, float(tid))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_bad_option_value_names_the_option() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    with pytest.raises(SpecError) as info:
        TPEStrategy(space, n_startup_trials=-1)
    assert info.value.path == "strategy.n_startup_trials"


def test_a_seed_beyond_32_bits_is_accepted() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    assert TPEStrategy(space, seed=2**40 + 4).suggest(0) == TPEStrategy(space, seed=4).suggest(0)
