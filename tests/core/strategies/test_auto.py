"""The auto strategy: the shared suite, what it chooses and why, and its switch to TPE."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.spec import parse_spec
from hpnb.core.strategies.auto import SWITCHED, AutoStrategy
from hpnb.core.strategies.base import TrialHistory, catch_up
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite
from hpnb.testing.conditional_space import conditional_space


class TestAutoSuite(StrategySuite):
    strategy = "auto"
    optimises = True
    # the suite checks that a resumed search runs no configuration twice: no noise probe here
    strategy_options: ClassVar[dict[str, Any]] = {"noise": False}


LISTS = "metric: m\nparameters: {lr: [0.1, 0.01, 0.001], depth: [2, 4, 8], batch: [32, 64, 128, 256, 512], " \
        "act: [relu, tanh]}\n"


def _floats(n: int) -> SearchSpace:
    return SearchSpace(tuple(FloatParameter(f"x{i}", low=0.0, high=1.0) for i in range(n)))


@pytest.mark.parametrize(("space", "budget", "modes", "chosen", "reason"), [
    (_floats(6), 40, "min", "gp", "gp: 40 trials, 6 continuous parameters"),
    (_floats(3), 500, "min", "gp", "gp: 500 trials, 3 continuous parameters; tpe from trial 200"),
    (conditional_space(), 20, "min", "tpe", "tpe: 20 trials"),
    (_floats(25), 50, "min", "tpe", "more than 20 for a Gaussian process"),
    (SearchSpace((*(CategoricalParameter(f"c{i}", tuple(range(30))) for i in range(4)),
                  FloatParameter("x", low=0.0, high=1.0))),
     50, "min", "tpe", "120 categorical values in all"),
    (SearchSpace(tuple(CategoricalParameter(f"c{i}", ("a", "b", "c")) for i in range(4))), 60, "min", "tpe",
     "tpe: 60 trials, 4 categorical parameters: no order for a Gaussian process to learn"),
    (parse_spec(LISTS).space, 60, "min", "gp", "gp: 60 trials, 3 ordered, 1 categorical parameters"),
    (_floats(2), 5000, "min", "gp", "gp: 5000 trials, 2 continuous parameters; tpe from trial 200"),
    (_floats(2), 50, ("min", "max"), "tpe", "tpe: 2 objectives, 50 trials"),
    (_floats(2), 400, ("min", "min"), "nsga2", "nsga2: 2 objectives, 400 trials"),
    (SearchSpace((IntParameter("n", 1, 4), CategoricalParameter("c", ("a", "b")))), 20, "min", "grid",
     "8 configurations fit the budget"),
    (SearchSpace((IntParameter("n", 1, 40), CategoricalParameter("c", ("a", "b")))), 20, "min", "gp",
     "gp: 20 trials, 1 integer, 1 categorical parameters"),
])
def test_chooses_from_the_space_the_budget_and_the_objectives(
        space: SearchSpace, budget: int, modes: object, chosen: str, reason: str) -> None:
    auto = AutoStrategy(space, modes, seed=0, budget=budget)  # type: ignore[arg-type]
    assert auto.choice.name == chosen
    assert reason in auto.choice.reason
    suggestion = auto.suggest(0)
    assert suggestion is not None and suggestion.info["auto"] == chosen
    assert auto.state_dict()["reason"] == auto.choice.reason


def test_a_spec_without_a_strategy_runs_auto() -> None:
    spec = parse_spec({"metric": "loss", "trials": 30, "parameters": {"x": {"min": 0.0, "max": 1.0}}})
    assert spec.strategy.name == "auto"


def test_a_tiny_discrete_spec_without_trials_runs_its_whole_grid() -> None:
    parameters = {"n": {"values": [1, 2, 3]}, "c": {"values": ["a", "b"]}}
    spec = parse_spec({"metric": "loss", "parameters": parameters})
    assert spec.strategy.name == "auto" and spec.trials == 6


def _run(auto: AutoStrategy, first: int, last: int) -> list[dict[str, object]]:
    infos = []
    for tid in range(first, last):
        suggestion = auto.suggest(tid)
        assert suggestion is not None
        infos.append(suggestion.info)
        auto.observe(tid, (suggestion.params["x0"] - 0.3) ** 2 + (suggestion.params["x1"] - 0.6) ** 2)
    return infos


def test_a_long_search_switches_to_tpe_once_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpnb.core.strategies.auto_choice.GP_TRIALS", 15)
    auto = AutoStrategy(_floats(2), seed=1, budget=40)
    infos = _run(auto, 0, 30)
    assert [i["auto"] for i in infos] == ["gp"] * 15 + ["tpe"] * 15
    events = [(tid, i["event"]) for tid, i in enumerate(infos) if "event" in i]
    probe = {"kind": "repeat", "trial": 12, "of": events[0][1]["of"], "probe": True}  # the noise unknown
    assert events == [(12, probe), (15, {"kind": SWITCHED, "from": "gp", "to": "tpe", "trial": 15,
                                         "reason": "gp ran 15 trials; tpe learns them and goes on"})]
    assert auto.state_dict()["choice"] == "tpe"
    # TPE took over what the Gaussian process learnt: its suggestions stay near the optimum
    late = [abs(float(i.get("optuna_number", 0))) for i in infos[15:]]
    assert late == sorted(late) and late[0] == 15.0  # Optuna numbered the 15 learnt trials first


def test_resumed_after_the_switch_it_goes_on_with_tpe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpnb.core.strategies.auto_choice.GP_TRIALS", 10)
    auto = AutoStrategy(_floats(2), seed=2, budget=40)
    history = []
    for tid in range(20):
        params = auto.suggest(tid).params  # type: ignore[union-attr]
        value = float(params["x0"])
        auto.observe(tid, value)
        history.append(TrialHistory(tid, params, TrialState.COMPLETED, value))
    saved = json.loads(json.dumps(auto.state_dict()))
    resumed = AutoStrategy(_floats(2), seed=2, budget=40)
    resumed.load_state_dict(saved)
    catch_up(resumed, history, last_suggested=19)
    suggestion = resumed.suggest(20)
    assert suggestion is not None and suggestion.info["auto"] == "tpe" and "event" not in suggestion.info

