"""Fixtures of the strategy tests: a reference run of Optuna's samplers driven directly."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import optuna
import pytest
from optuna.distributions import BaseDistribution, FloatDistribution

from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies.base import Strategy


def himmelblau(params: dict[str, Any]) -> float:
    return float((params["x"] ** 2 + params["y"] - 11) ** 2 + (params["x"] + params["y"] ** 2 - 7) ** 2
                 + math.sin(params["z"]))


def _optuna_values(sampler: optuna.samplers.BaseSampler, trials: int) -> list[float]:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=sampler)
    distributions: dict[str, BaseDistribution] = {n: FloatDistribution(-5.0, 5.0) for n in ("x", "y", "z")}
    values = []
    for _ in range(trials):
        trial = study.ask(distributions)
        value = himmelblau(trial.params)
        study.tell(trial, value)
        values.append(value)
    return values


def _strategy_values(strategy_type: Callable[..., Strategy], trials: int, **options: Any) -> list[float]:
    space = SearchSpace(tuple(FloatParameter(n, low=-5.0, high=5.0) for n in ("x", "y", "z")))
    strategy = strategy_type(space, **options)
    values = []
    for tid in range(trials):
        suggestion = strategy.suggest(tid)
        assert suggestion is not None
        values.append(himmelblau(suggestion.params))
        strategy.observe(tid, values[-1])
    return values


@pytest.fixture
def optuna_values() -> Callable[[optuna.samplers.BaseSampler, int], list[float]]:
    """Objective values of a plain Optuna ask-and-tell loop over x, y, z in [-5, 5]."""
    return _optuna_values


@pytest.fixture
def strategy_values() -> Callable[..., list[float]]:
    """Objective values of the same loop driven through one of our strategies."""
    return _strategy_values
