"""Strategies that learn from constraints prefer the feasible region of a toy problem.

The toy: minimise (x - 0.9)^2 + (y - 0.9)^2 subject to x + y <= 1. The unconstrained optimum
(0.9, 0.9) is infeasible; the constrained one is (0.5, 0.5), loss 0.32.
"""

from __future__ import annotations

from typing import Any

import pytest

from hpnb.core.constraints import Constraint, learnt_violations
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.trial import TrialState

SPACE = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))
SUM = (Constraint("sum", max=1.0),)
OPTIMUM = 0.32
TRIALS, SEEDS = 40, (0, 1, 2)
OPTIONS: dict[str, dict[str, Any]] = {"nsga2": {"population_size": 10}}


def toy(params: dict[str, float]) -> dict[str, float]:
    return {"loss": (params["x"] - 0.9) ** 2 + (params["y"] - 0.9) ** 2, "sum": params["x"] + params["y"]}


def play(name: str, seed: int, constrained: bool) -> tuple[float, int]:
    """(the best feasible loss, how many of the second half of the trials were feasible)."""
    strategy = strategy_class(name)(SPACE, seed=seed, budget=TRIALS, **OPTIONS.get(name, {}))
    assert strategy.learns_from_constraints
    if constrained:
        strategy.use_constraints(len(SUM))
    best, feasible = float("inf"), 0
    for trial_id in range(TRIALS):
        metrics = toy(strategy.suggest(trial_id).params)
        if constrained:
            strategy.observe_violations(trial_id, learnt_violations(metrics, SUM))
        strategy.observe(trial_id, metrics["loss"])
        if metrics["sum"] <= 1.0:
            best = min(best, metrics["loss"])
            feasible += trial_id >= TRIALS // 2
    return best, feasible


def on_a_grid(first_id: int) -> list[TrialHistory]:
    """30 completed trials on a 6 x 5 grid of the square, with their violations."""
    history = []
    for i in range(30):
        params = {"x": (i % 6) / 5.0, "y": (i // 6) / 4.0}
        metrics = toy(params)
        history.append(TrialHistory(first_id + i, params, TrialState.COMPLETED, metrics["loss"],
                                    violations=learnt_violations(metrics, SUM)))
    return history


@pytest.mark.parametrize("name", ["tpe", "nsga2", "gp", "auto"])
def test_a_strategy_told_the_constraints_finds_a_better_feasible_configuration(name):
    told = [play(name, seed, True) for seed in SEEDS]
    blind = [play(name, seed, False) for seed in SEEDS]
    regret_told = sum(best - OPTIMUM for best, _ in told)
    regret_blind = sum(best - OPTIMUM for best, _ in blind)
    assert regret_told < regret_blind, (told, blind)
    assert sum(f for _, f in told) >= sum(f for _, f in blind), (told, blind)
    if name in ("gp", "auto"):  # the process finds the constrained optimum itself
        assert all(best - OPTIMUM < 0.01 for best, _ in told), told


@pytest.mark.parametrize("name", ["tpe", "nsga2"])
def test_most_suggestions_are_feasible_once_the_sampler_learnt_the_constraint(name):
    told = [play(name, seed, True)[1] for seed in SEEDS]
    blind = [play(name, seed, False)[1] for seed in SEEDS]
    assert sum(told) >= 2 * max(1, sum(blind)) and sum(told) >= len(SEEDS) * TRIALS // 4, (told, blind)


@pytest.mark.parametrize("name", ["tpe", "gp"])
def test_a_resumed_strategy_relearns_the_violations_of_stored_trials(name):
    """Rebuilt from a history where the feasible trials are also the worst, a constrained
    strategy still suggests feasible configurations far more often than an unconstrained one."""
    history = on_a_grid(first_id=0)
    counts = []
    for constrained in (True, False):
        strategy = strategy_class(name)(SPACE, seed=0, budget=50)
        if constrained:
            strategy.use_constraints(1)
        strategy.rebuild(history)
        feasible = 0
        for i in range(30, 42):
            params = strategy.suggest(i).params
            feasible += toy(params)["sum"] <= 1.0
            strategy.observe_violations(i, learnt_violations(toy(params), SUM))
            strategy.observe(i, toy(params)["loss"])
        counts.append(feasible)
    assert counts[0] >= counts[1] + 4, counts


def test_strategies_that_ignore_constraints_say_so():
    ignoring = [n for n in ("random", "grid", "sobol", "cmaes", "de", "pbt")
                if not strategy_class(n).learns_from_constraints]
    assert ignoring == ["random", "grid", "sobol", "cmaes", "de", "pbt"]


def test_a_warm_started_tpe_learns_the_violations_of_the_other_searchs_trials():
    prior = on_a_grid(first_id=-30)
    counts = []
    for constrained in (True, False):
        tpe = strategy_class("tpe")(SPACE, seed=0, budget=20, n_startup_trials=0)
        if constrained:
            tpe.use_constraints(1)
        assert tpe.learn_prior(prior) == 30
        counts.append(sum(toy(tpe.suggest(i).params)["sum"] <= 1.0 for i in range(12)))
    assert counts[0] >= counts[1] + 4, counts
