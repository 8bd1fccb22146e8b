"""Every strategy runs enqueued configurations first; tpe, cmaes and nsga2 learn another search's trials."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies import STRATEGIES, strategy_class
from hpnb.core.strategies.base import Strategy, TrialHistory, catch_up
from hpnb.core.trial import TrialState
from hpnb.testing import mixed_space, stepped_space
from hpnb.testing.conditional_space import conditional_space

SQUARE = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))


def make(name: str, space: SearchSpace, **options: Any) -> Strategy:
    return strategy_class(name)(space, seed=3, budget=40, **options)


def space_for(name: str) -> SearchSpace:
    return stepped_space() if name in ("grid", "range") else mixed_space()


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_an_enqueued_configuration_keeps_what_was_given_and_completes_the_rest(name: str) -> None:
    space = space_for(name)
    given = {"layers": 2, "optimizer": "adam"}
    strategy = make(name, space)
    adopted = strategy.adopt(0, given)
    assert space.contains(adopted.params) and {k: adopted.params[k] for k in given} == given
    strategy.observe(0, 1.0)
    following = strategy.suggest(1)  # its own first suggestion, still to come
    assert following is not None and space.contains(following.params), name


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_an_enqueued_conditional_configuration_gets_its_active_parameters_only(name: str) -> None:
    space = conditional_space()
    adopted = make(name, space).adopt(0, {"optimizer": "sgd"})
    assert space.contains(adopted.params)
    assert adopted.params["optimizer"] == "sgd"
    assert "momentum" in adopted.params and "beta" not in adopted.params


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_resume_replays_the_enqueued_trials_as_given(name: str) -> None:
    space = space_for(name)
    enqueued = [{"layers": 1}, {"layers": 3}]
    original = make(name, space)
    saved = original.state_dict()  # as stored when the search began
    history = {}
    for tid in range(6):
        suggestion = original.adopt(tid, enqueued[tid]) if tid < 2 else original.suggest(tid)
        if suggestion is None:  # a fixed search's few configurations
            break
        original.observe(tid, float(tid))
        history[tid] = TrialHistory(tid, suggestion.params, TrialState.COMPLETED, float(tid))
    resumed = make(name, space)
    resumed.load_state_dict(json.loads(json.dumps(saved)))
    catch_up(resumed, [history[t] for t in sorted(history)], last_suggested=-1, enqueued=enqueued)
    after = resumed.suggest(6)
    if not resumed.learns_from_results and not resumed.rebuilds_from_history:
        assert after == original.suggest(6)  # the sequence is where it was
    assert after is None or space.contains(after.params)


def _distance(params: dict[str, float]) -> float:
    return math.hypot(params["x"] - 0.8, params["y"] - 0.2)


def _prior(count: int, rng: np.random.Generator) -> list[TrialHistory]:
    points = [{"x": float(x), "y": float(y)} for x, y in rng.random((count, 2))]
    return [TrialHistory(-1 - i, p, TrialState.COMPLETED, _distance(p)) for i, p in enumerate(points)]


@pytest.mark.parametrize(("name", "options"), [("tpe", {}), ("cmaes", {}), ("nsga2", {"population_size": 8})])
def test_a_warm_started_strategy_suggests_near_what_the_other_search_found(name: str, options: dict) -> None:
    cold, warm = make(name, SQUARE, **options), make(name, SQUARE, **options)
    assert warm.learn_prior(_prior(60, np.random.default_rng(0))) == 60
    distances = {"cold": [], "warm": []}
    for label, strategy in (("cold", cold), ("warm", warm)):
        for tid in range(12):
            suggestion = strategy.suggest(tid)
            assert suggestion is not None
            distances[label].append(_distance(suggestion.params))
            strategy.observe(tid, distances[label][-1])
    assert np.median(distances["warm"]) < np.median(distances["cold"]), distances


def test_the_prior_survives_a_rebuild_and_partial_trials_teach_tpe_only() -> None:
    prior = [*_prior(30, np.random.default_rng(1)), TrialHistory(-99, {"x": 0.8}, TrialState.COMPLETED, 0.2)]
    assert make("tpe", SQUARE).learn_prior(prior) == 31
    cmaes = make("cmaes", SQUARE)
    assert cmaes.learn_prior(prior) == 30
    cmaes.rebuild([TrialHistory(0, {"x": 0.5, "y": 0.5}, TrialState.COMPLETED, 0.4)])
    assert len(cmaes._study.trials) == 31  # the warm start again, then the search's own trial
    assert all(tid >= 0 for tid in map(int, cmaes.state_dict()["attrs"]))


@pytest.mark.parametrize("name", sorted(set(STRATEGIES) - {"tpe", "cmaes", "nsga2"}))
def test_the_other_strategies_do_not_learn_a_warm_start(name: str) -> None:
    strategy = make(name, space_for(name))
    assert not strategy.learns_from_prior
