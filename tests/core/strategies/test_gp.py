"""The gp strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.gp import GPStrategy
from hpnb.core.strategies.gp_acquisition import maximise, near
from hpnb.core.strategies.gp_encoding import Encoding
from hpnb.core.strategies.random import RandomStrategy
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite


class TestGPSuite(StrategySuite):
    strategy = "gp"
    optimises = True
    # the model's window: the suite's 500-trial state check then takes seconds, not a minute; no
    # noise probe, as the suite checks that a resumed search runs no configuration twice (probes
    # and repeats: test_gp_noise.py)
    strategy_options: ClassVar[dict[str, Any]] = {"max_points": 100, "noise": False}

    @pytest.mark.slow  # 500 trials through a Gaussian process: tens of seconds on a loaded machine
    def test_state_stays_small(self) -> None:
        super().test_state_stays_small()


def _branin(params: dict[str, float]) -> float:
    x, y = 15.0 * params["x"] - 5.0, 15.0 * params["y"]
    return float((y - 5.1 / (4 * math.pi ** 2) * x * x + 5 / math.pi * x - 6) ** 2
                 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10)


def _unit_square() -> SearchSpace:
    return SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))


def _best_after(strategy_type: type, seed: int, trials: int = 30) -> float:
    strategy = strategy_type(_unit_square(), seed=seed, budget=trials)
    best = math.inf
    for tid in range(trials):
        value = _branin(strategy.suggest(tid).params)
        strategy.observe(tid, value)
        best = min(best, value)
    return best


def test_finds_branin_minimum_better_than_random_search() -> None:
    """Branin's minimum is 0.398; 30 GP trials come close on every seed, random search does not."""
    gp = [_best_after(GPStrategy, seed) for seed in range(3)]
    rnd = [_best_after(RandomStrategy, seed) for seed in range(3)]
    assert max(gp) < 0.6, gp
    assert np.median(gp) < np.median(rnd), (gp, rnd)


def test_a_model_settled_on_one_spot_moves_away_and_finds_the_minimum() -> None:
    """Branin, seed 6: from trial 19 the model proposes points a thousandth apart at a corner of the
    square (x = 1, y = 0.2), beside the minimum at (0.96, 0.16) that it has not sampled; after three
    such proposals gp proposes away from every point run, and finds the minimum (0.398)."""
    assert _best_after(GPStrategy, 6, trials=100) < 0.40


def test_the_acquisition_keeps_away_from_points_when_asked() -> None:
    encoding = Encoding(_unit_square())
    target = np.array([[0.3, 0.7]])

    def score(x: np.ndarray, c: np.ndarray) -> np.ndarray:
        return -((x - target) ** 2).sum(axis=1)

    none = np.empty((1, 0), dtype=int)
    close, _ = maximise(score, encoding, np.random.default_rng(0), (target, none), set())
    away, _ = maximise(score, encoding, np.random.default_rng(0), (target, none), set(), (target, none, 0.05))
    assert np.abs(close - target[0]).max() < 0.01
    assert np.abs(away - target[0]).max() >= 0.05
    assert np.abs(away - target[0]).max() < 0.06  # the best point left: just beyond the distance
    both = near(np.vstack([close, away]), np.zeros((2, 0), dtype=int), (target, none, 0.05))
    assert both.tolist() == [True, False]


def _mixed_objective(params: dict[str, object]) -> float:
    shift = {"a": 1.0, "b": 0.0, "c": 2.0}[str(params["kind"])]
    return (float(params["lr"]) - 0.3) ** 2 + 0.05 * (int(params["layers"]) - 3) ** 2 + shift  # type: ignore[arg-type]


def test_learns_the_categorical_and_integer_parts_of_a_mixed_space() -> None:
    space = SearchSpace((FloatParameter("lr", low=0.0, high=1.0), IntParameter("layers", 1, 8),
                         CategoricalParameter("kind", ("a", "b", "c"))))
    gp = GPStrategy(space, seed=0, budget=30)
    for tid in range(30):
        params = gp.suggest(tid).params
        assert space.contains(params)
        gp.observe(tid, _mixed_objective(params))
    best = gp.best()
    assert best is not None and best["kind"] == "b" and abs(best["layers"] - 3) <= 1, best


def test_running_trials_are_not_proposed_again() -> None:
    """With 8 trials running and no result back since, the 8 model suggestions differ and none
    repeats a running or finished configuration (a small integer space where repeats are likely)."""
    space = SearchSpace((IntParameter("a", 1, 6), IntParameter("b", 1, 6)))
    gp = GPStrategy(space, seed=1, n_startup_trials=5)
    for tid in range(5):
        params = gp.suggest(tid).params
        gp.observe(tid, float((params["a"] - 2) ** 2 + (params["b"] - 5) ** 2))
    seen = [tuple(p.values()) for p in (gp._results[t][0] for t in range(5))]
    batch = [tuple(gp.suggest(tid).params.values()) for tid in range(5, 13)]
    assert len(set(batch)) == 8 and not set(batch) & set(seen), (batch, seen)


def test_failures_teach_it_to_avoid_a_region() -> None:
    """Trials with x > 0.5 fail; after the startup design the model proposes mostly x <= 0.5."""
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    gp = GPStrategy(space, seed=2, n_startup_trials=6)
    late = []
    for tid in range(25):
        x = gp.suggest(tid).params["x"]
        if tid >= 10:
            late.append(x)
        if x > 0.5:
            gp.observe(tid, None, TrialState.FAILED)
        else:
            gp.observe(tid, (x - 0.45) ** 2)
    assert sum(x <= 0.5 for x in late) >= 0.8 * len(late), late


def test_noisy_results_are_modelled_not_trusted() -> None:
    """On a noisy 1-D objective the best posterior mean guides the search: the model's late
    suggestions concentrate near the true minimum, not around a lucky draw."""
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    gp = GPStrategy(space, seed=3, budget=40)
    noise = np.random.default_rng(0)
    late = []
    for tid in range(40):
        x = gp.suggest(tid).params["x"]
        late.append(x)
        gp.observe(tid, (x - 0.7) ** 2 + 0.02 * float(noise.normal()))
    assert abs(float(np.median(late[-15:])) - 0.7) < 0.1, late[-15:]


def test_a_bad_option_is_refused_with_its_path() -> None:
    with pytest.raises(SpecError) as info:
        GPStrategy(_unit_square(), n_startup_trials=0)
    assert info.value.path == "strategy.n_startup_trials"


def test_a_search_beyond_its_practical_size_warns_with_what_to_use_instead() -> None:
    with pytest.warns(UserWarning, match=r"gp with 5000 trials.*use auto .* or tpe"):
        GPStrategy(_unit_square(), budget=5000)
    many = SearchSpace(tuple(CategoricalParameter(f"c{i}", tuple(range(30))) for i in range(4)))
    with pytest.warns(UserWarning, match=r"gp with 120 categorical values in all.*use tpe"):
        GPStrategy(many, budget=50)
