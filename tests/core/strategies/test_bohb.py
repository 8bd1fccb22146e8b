"""The bohb strategy: the shared suite and its own behaviour."""

from __future__ import annotations

import numpy as np

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies.base import TrialHistory, catch_up
from hpnb.core.strategies.bohb import BOHBStrategy
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite


class TestBOHBSuite(StrategySuite):
    strategy = "bohb"
    optimises = True
    list_trials = None
    list_reason = ("without rungs its densities narrow onto one configuration of a grid of values "
                   "and run it again (as on an integer grid)")


def _square() -> SearchSpace:
    return SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))


def _bowl(params: dict[str, float], epoch: int) -> float:
    """A learning curve: lower with more epochs, lowest near (0.7, 0.2) at every epoch."""
    return (params["x"] - 0.7) ** 2 + (params["y"] - 0.2) ** 2 + 1.0 / epoch


def test_the_model_learns_from_the_largest_budget_with_enough_results() -> None:
    bohb = BOHBStrategy(_square(), seed=0, random_fraction=0.0)
    bohb.use_stopping_rule(ASHA(grace=1, reduction=3, max_t=27))
    assert bohb.min_points == 3
    reached = [1] * 10 + [3] * 6 + [9] * 4  # a budget needs min_points + 2 = 5 results
    infos = []
    for tid, last in enumerate(reached):
        suggestion = bohb.suggest(tid)
        assert suggestion is not None
        infos.append(suggestion.info)
        for epoch in (1, 3, 9):
            if epoch <= last:
                bohb.report(tid, epoch, _bowl(suggestion.params, epoch))
        bohb.observe(tid, _bowl(suggestion.params, last), TrialState.STOPPED)
    assert [info["bohb"] for info in infos[:5]] == ["random"] * 5  # fewer than 5 results anywhere
    assert [info.get("model") for info in infos[5:]] == [1] * 10 + [3] * 5
    events = [info["event"] for info in infos if "event" in info]
    assert events == [{"kind": "strategy_model", "strategy": "bohb", "trial": 5, "budget": 1}]
    suggestion = bohb.suggest(20)
    assert suggestion is not None and suggestion.info["model"] == 3  # rung 9 has only 4


def test_good_and_bad_split_as_in_bohb() -> None:
    bohb = BOHBStrategy(_square(), seed=0, min_points=3)
    for tid in range(40):
        bohb.suggest(tid)
        bohb.report(tid, 1, float(tid))
    good, bad = bohb.split(1)
    assert good == [0, 1, 2, 3, 4, 5]  # 15 % of 40, rounded up
    assert bad == list(range(6, 40))


def test_model_suggestions_concentrate_where_low_budgets_were_good() -> None:
    """Trials stopped at the first rung teach the model: its suggestions lie nearer the optimum than
    random draws do (they lie 0.45 from (0.7, 0.2) on average)."""
    bohb = BOHBStrategy(_square(), seed=1)
    bohb.use_stopping_rule(ASHA(grace=1, reduction=3, max_t=27))
    distances = []
    for tid in range(60):
        suggestion = bohb.suggest(tid)
        assert suggestion is not None
        params = suggestion.params
        bohb.report(tid, 1, _bowl(params, 1))
        bohb.observe(tid, _bowl(params, 1), TrialState.STOPPED)
        if suggestion.info["bohb"] == "model":
            distances.append(np.hypot(params["x"] - 0.7, params["y"] - 0.2))
    assert len(distances) > 25
    assert float(np.median(distances)) < 0.2, distances


def test_resumed_bohb_relearns_results_per_budget_from_the_store() -> None:
    rule = ASHA(grace=1, reduction=3, max_t=27)
    original = BOHBStrategy(_square(), seed=2)
    original.use_stopping_rule(rule)
    history = []
    for tid in range(30):
        params = original.suggest(tid).params  # type: ignore[union-attr]
        steps = {1: _bowl(params, 1), 3: _bowl(params, 3)}
        for step, value in steps.items():
            original.report(tid, step, value)
        original.observe(tid, steps[3], TrialState.STOPPED)
        history.append(TrialHistory(tid, params, TrialState.STOPPED, steps[3], steps))
    resumed = BOHBStrategy(_square(), seed=99)
    resumed.use_stopping_rule(rule)
    resumed.load_state_dict(original.state_dict())
    catch_up(resumed, history, last_suggested=29)
    assert resumed.record.losses == original.record.losses
    assert resumed.suggest(30) == original.suggest(30)
