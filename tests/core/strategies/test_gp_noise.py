"""gp with a noisy metric: a fitted noise variance, repeats of the best configuration, and the best
chosen by its estimated mean; ``auto`` passes ``noise`` on."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.repeats import config_key
from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.auto import AutoStrategy
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.gp import GPStrategy
from hpnb.core.strategies.gp_model import fit
from hpnb.core.trial import TrialState


def test_the_noise_variance_is_fitted_not_a_fixed_jitter() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((80, 1))
    clean = np.sin(6.0 * x[:, 0])
    quiet = fit(x, np.empty((80, 0), dtype=int), clean)
    noisy = fit(x, np.empty((80, 0), dtype=int), clean + rng.normal(0.0, 0.3, 80))
    assert 0.09 / 2 < noisy.noise_variance < 0.09 * 2, noisy.noise_variance
    assert quiet.noise_variance < 0.01, quiet.noise_variance


def test_a_noise_variance_measured_from_repeats_is_kept_not_fitted() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((60, 1))
    y = np.sin(6.0 * x[:, 0]) + rng.normal(0.0, 0.3, 60)
    none = np.empty((60, 0), dtype=int)
    assert fit(x, none, y, noise=0.2).noise_variance == pytest.approx(0.2, rel=1e-6)
    assert abs(fit(x, none, y).noise_variance - 0.2) > 0.05  # fitted, it is another


def _grid() -> SearchSpace:
    return SearchSpace((IntParameter("a", 0, 9), IntParameter("b", 0, 9)))


def _truth(params: dict[str, Any]) -> float:
    return 0.02 * ((params["a"] - 6) ** 2 + (params["b"] - 3) ** 2)


def _run(gp: GPStrategy, trials: int, noise_sd: float, seed: int = 0) -> list[Any]:
    rng = np.random.default_rng(seed)
    suggestions = []
    for tid in range(trials):
        suggestion = gp.suggest(tid)
        suggestions.append(suggestion)
        gp.observe(tid, _truth(suggestion.params) + rng.normal(0.0, noise_sd))
    return suggestions


def test_a_noisy_search_runs_its_best_configuration_again_every_few_trials() -> None:
    gp = GPStrategy(_grid(), seed=1, budget=40, noise=True, repeat_every=4, n_startup_trials=8,
                    final_repeats=0)
    suggestions = _run(gp, 40, noise_sd=0.3)
    repeats = [(tid, s) for tid, s in enumerate(suggestions) if s.info.get("gp") == "repeat"]
    assert [tid for tid, _ in repeats] == list(range(11, 40, 4))
    for tid, s in repeats:
        first = s.info["repeat_of"]
        assert first < tid and suggestions[first].params == s.params
        assert s.info["event"] == {"kind": "repeat", "trial": tid, "of": first}
    runs: dict[str, int] = {}
    for s in suggestions:
        runs[config_key(s.params)] = runs.get(config_key(s.params), 0) + 1
    assert max(runs.values()) <= 5


def _repeats(suggestions: list[Any]) -> list[int]:
    return [tid for tid, s in enumerate(suggestions) if s.info.get("gp") == "repeat"]


def test_a_noisy_search_ends_with_runs_of_its_best_configurations() -> None:
    gp = GPStrategy(_grid(), seed=1, budget=40, noise=True, repeat_every=100, n_startup_trials=8)
    suggestions = _run(gp, 40, noise_sd=0.3)
    assert _repeats(suggestions) == [36, 37, 38, 39]  # the last tenth of the budget
    last = GPStrategy(_grid(), seed=1, budget=40, noise=True, repeat_every=100, final_repeats=0.25)
    assert _repeats(_run(last, 40, noise_sd=0.3)) == list(range(30, 40))


def test_with_slots_busy_the_final_stretch_runs_the_best_in_several_at_once_up_to_five_runs() -> None:
    gp = GPStrategy(_grid(), seed=1, budget=40, noise=True, repeat_every=100, n_startup_trials=8)
    given = [({"a": 6, "b": 3}, 0.05), ({"a": 6, "b": 3}, 0.07), ({"a": 0, "b": 0}, 0.40)]
    given += [({"a": a, "b": 9}, 0.5 + 0.01 * a) for a in range(10)]
    for tid, (params, value) in enumerate(given):
        gp.adopt(tid, params)
        gp.observe(tid, value)
    for tid in range(len(given), 36):  # up to the last tenth
        gp.adopt(tid, {"a": 9, "b": tid % 10})
        gp.observe(tid, 0.9)
    running = [gp.suggest(tid) for tid in range(36, 40)]  # four slots, none finished yet
    # the best has 2 runs: 3 more run at once (5 in all), then the next best
    assert [s.params for s in running] == [{"a": 6, "b": 3}] * 3 + [{"a": 0, "b": 0}]
    assert all(s.info["gp"] == "repeat" for s in running)


def test_noise_false_runs_nothing_twice() -> None:
    suggestions = _run(GPStrategy(_grid(), seed=1, budget=30, noise=False), 30, noise_sd=0.0)
    assert len({config_key(s.params) for s in suggestions}) == 30
    assert not _repeats(suggestions)


def test_unknown_noise_is_probed_twice_and_repeats_that_agree_end_the_repeats() -> None:
    suggestions = _run(GPStrategy(_grid(), seed=1, budget=50), 50, noise_sd=0.0)
    probes = _repeats(suggestions)
    assert probes == [19, 29]  # the first repeats due: every 10th suggestion after the start-up design
    for probe in probes:
        event = suggestions[probe].info["event"]
        assert event["probe"] is True and suggestions[event["of"]].params == suggestions[probe].params
    assert len({config_key(s.params) for s in suggestions}) == 48


def test_unknown_noise_that_the_probe_finds_makes_a_noisy_search() -> None:
    suggestions = _run(GPStrategy(_grid(), seed=1, budget=40), 40, noise_sd=0.3)
    repeats = _repeats(suggestions)
    assert repeats == [19, 29, 36, 37, 38, 39]
    assert suggestions[19].info["event"]["probe"] and "probe" not in suggestions[29].info["event"]


def test_noise_is_detected_from_a_configuration_that_gave_two_results() -> None:
    gp = GPStrategy(_grid(), seed=2, budget=30, n_startup_trials=4, repeat_every=4)
    for tid in range(2):
        gp.adopt(tid, {"a": 6, "b": 3})
        gp.observe(tid, 0.1 * tid)
    _run_from = [gp.suggest(tid) for tid in range(2, 12)]
    assert any(s.info.get("gp") == "repeat" for s in _run_from)


def test_the_best_is_the_configuration_of_best_estimated_mean_not_one_lucky_result() -> None:
    gp = GPStrategy(_grid(), seed=0, budget=10, noise=True)
    given = [({"a": 0, "b": 0}, 0.05), ({"a": 6, "b": 3}, 0.15), ({"a": 0, "b": 0}, 0.45),
             ({"a": 6, "b": 3}, 0.17), ({"a": 9, "b": 9}, 0.90), ({"a": 9, "b": 9}, 0.80)]
    for tid, (params, value) in enumerate(given):
        gp.adopt(tid, params)
        gp.observe(tid, value)
    assert gp.best() == {"a": 6, "b": 3}


def test_repeat_every_is_checked() -> None:
    with pytest.raises(SpecError, match=r"strategy\.repeat_every"):
        GPStrategy(_grid(), repeat_every=1)
    with pytest.raises(SpecError, match=r"strategy\.noise"):
        GPStrategy(_grid(), noise="yes")
    with pytest.raises(SpecError, match=r"strategy\.final_repeats"):
        GPStrategy(_grid(), final_repeats=0.9)


def test_auto_passes_noise_to_the_gaussian_process_and_says_so() -> None:
    space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    auto = AutoStrategy(space, seed=0, budget=30, noise=True)
    assert auto.choice.reason == "gp: 30 trials, 1 continuous parameter, noisy: repeats the best"
    assert isinstance(auto.inner, GPStrategy) and auto.inner.noise


def test_a_resumed_search_remembers_that_its_probes_agreed() -> None:
    first = GPStrategy(_grid(), seed=3, budget=50)
    suggestions = _run(first, 35, noise_sd=0.0)
    assert _repeats(suggestions) == [19, 29]
    history = [TrialHistory(tid, s.params, TrialState.COMPLETED, _truth(s.params))
               for tid, s in enumerate(suggestions)]
    resumed = GPStrategy(_grid(), seed=3, budget=50)
    resumed.rebuild(history)
    later = [resumed.suggest(tid) for tid in range(35, 50)]
    assert not any(s.info.get("gp") == "repeat" for s in later)


def test_a_short_search_whose_noise_is_not_known_explores_to_its_end() -> None:
    # 3 start-up trials: the first probe would be due at trial 12, after the end; the last stretch
    # (trials 10 and 11) explores
    suggestions = _run(GPStrategy(_grid(), seed=4, budget=12, final_repeats=0.2), 12, noise_sd=0.0)
    assert not _repeats(suggestions)
    noisy = _run(GPStrategy(_grid(), seed=4, budget=12, final_repeats=0.2, noise=True), 12, noise_sd=0.3)
    assert _repeats(noisy) == [10, 11]


def test_a_noisy_constrained_search_runs_only_feasible_configurations_again() -> None:
    gp = GPStrategy(_grid(), seed=5, budget=40, noise=True, repeat_every=3, n_startup_trials=8)
    gp.use_constraints(1)
    rng = np.random.default_rng(5)
    suggestions = []
    for tid in range(40):
        suggestion = gp.suggest(tid)
        suggestions.append(suggestion)
        params = suggestion.params
        gp.observe_violations(tid, (float(params["a"] - 4),))  # feasible: a <= 4 (the optimum, a = 6, is not)
        gp.observe(tid, _truth(params) + rng.normal(0.0, 0.1))
    repeated = [suggestions[tid].params for tid in _repeats(suggestions)]
    assert len(repeated) >= 10 and all(params["a"] <= 4 for params in repeated)
