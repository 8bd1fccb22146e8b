from __future__ import annotations

import math

import numpy as np
import pytest

from hpnb.core.analysis import NotEnoughTrials, parameter_importance
from hpnb.core.errors import HpnbError
from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    SearchSpace,
)
from tests.core.analysis.records import sampled, trial

NOISE = FloatParameter("noise", low=0.0, high=1.0)
DRIVERS = {
    "categorical": (CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
                    lambda c: {"sgd": 3.0, "adam": 0.0, "rmsprop": 1.5}[c["optimizer"]]),
    "log-scaled": (FloatParameter("lr", "logUniform", low=1e-5, high=1e-1),
                   lambda c: (math.log10(c["lr"]) + 3.0) ** 2),
    "integer": (IntParameter("layers", 1, 8), lambda c: (c["layers"] - 3) ** 2),
    "log-scaled integer": (IntParameter("units", 1, 1024, log=True),
                           lambda c: abs(math.log2(c["units"]) - 6)),
}


@pytest.mark.parametrize("evaluator", ["fanova", "ped-anova"])
@pytest.mark.parametrize("kind", list(DRIVERS))
def test_the_parameter_that_drives_the_score_ranks_above_noise(kind, evaluator):
    driver, effect = DRIVERS[kind]
    space = SearchSpace((NOISE, driver, FixedParameter("batch", 64)))
    jitter = np.random.default_rng(1)  # the score does not depend on "noise" at all
    trials = sampled(space, 60, lambda c: effect(c) + 0.05 * jitter.random())
    found = parameter_importance(trials, space, "min", evaluator)
    assert list(found) == [driver.name, "noise"]  # fixed parameters are not rated
    assert found[driver.name] > 0.6 > found["noise"]
    assert sum(found.values()) == pytest.approx(1.0)


def test_several_parameters_and_max_mode_rank_in_order_of_their_effect():
    space = SearchSpace((NOISE, DRIVERS["integer"][0], DRIVERS["log-scaled"][0]))
    trials = sampled(space, 80, lambda c: -(10 * (math.log10(c["lr"]) + 3) ** 2 + (c["layers"] - 3) ** 2))
    assert list(parameter_importance(trials, space, "max")) == ["lr", "layers", "noise"]


def test_fanova_is_seeded_so_the_same_trials_give_the_same_numbers():
    space = SearchSpace((NOISE, DRIVERS["integer"][0]))
    trials = sampled(space, 30, lambda c: c["layers"] + c["noise"])
    assert parameter_importance(trials, space, "min") == parameter_importance(trials, space, "min")


def test_too_few_completed_trials_is_said_plainly():
    space = SearchSpace((NOISE,))
    trials = [trial(0, 0.5, {"noise": 0.1}), trial(1, None, {"noise": 0.2}, state="FAILED"),
              trial(2, 0.4, {"noise": 0.3}, state="STOPPED"), trial(3, 0.1, {"noise": 0.4}, state="RUNNING")]
    with pytest.raises(NotEnoughTrials) as raised:
        parameter_importance(trials, space, "min")
    assert str(raised.value) == "importance needs at least 4 completed trials; this search has 1"
    assert isinstance(raised.value, HpnbError) and (raised.value.needed, raised.value.found) == (4, 1)
    with pytest.raises(NotEnoughTrials, match="this search has none"):
        parameter_importance([], space, "min")


@pytest.mark.parametrize("evaluator", ["fanova", "ped-anova"])
@pytest.mark.parametrize("conditional", [FloatParameter("momentum", low=0.0, high=1.0),
                                         IntParameter("momentum", 0, 9),
                                         CategoricalParameter("momentum", ("low", "mid", "high"))])
def test_a_conditional_parameter_that_drives_the_score_where_active_is_rated(conditional, evaluator):
    optimizer = CategoricalParameter("optimizer", ("sgd", "adam"))
    space = SearchSpace((optimizer, conditional, NOISE))
    jitter = np.random.default_rng(2)

    def score(c):  # with sgd, the momentum decides everything; adam is a middling constant
        if c["optimizer"] == "adam":
            return 1.0 + 0.05 * jitter.random()
        return 2.0 * conditional.to_unit(c["momentum"]) + 0.05 * jitter.random()

    trials = sampled(space, 80, score)
    for t in trials:  # momentum is active with sgd only
        if t.params["optimizer"] == "adam":
            del t.params["momentum"]
    found = parameter_importance(trials, space, "min", evaluator)
    assert set(found) == {"optimizer", "momentum", "noise"}
    assert found["momentum"] > found["noise"] and found["momentum"] > 0.3
    assert sum(found.values()) == pytest.approx(1.0)


def test_a_parameter_in_too_few_trials_is_not_rated_and_the_others_are():
    momentum = FloatParameter("momentum", low=0.0, high=1.0)
    optimizer = CategoricalParameter("optimizer", ("sgd", "adam"))
    space = SearchSpace((optimizer, momentum, NOISE))
    trials = sampled(space, 40, lambda c: 2.0 * (c["optimizer"] == "sgd") + 0.1 * c["noise"])
    for t in trials[3:]:  # only three trials have a momentum
        t.params.pop("momentum", None)
    found = parameter_importance(trials, space, "min")
    assert list(found) == ["optimizer", "noise"]


def test_a_single_valued_or_fixed_parameter_is_not_rated_and_all_fixed_is_an_error():
    space = SearchSpace((CategoricalParameter("only", ("a",)), NOISE))
    trials = sampled(space, 10, lambda c: c["noise"])
    assert list(parameter_importance(trials, space, "min")) == ["noise"]
    fixed = SearchSpace((FixedParameter("batch", 64),))
    with pytest.raises(HpnbError, match="no parameter to rate"):
        parameter_importance(sampled(fixed, 10, lambda c: 1.0), fixed, "min")


def test_scores_all_equal_explain_nothing():
    space = SearchSpace((NOISE, DRIVERS["integer"][0]))
    for evaluator in ("fanova", "ped-anova"):
        found = parameter_importance(sampled(space, 10, lambda c: 1.0), space, "min", evaluator)
        assert found == {"noise": 0.0, "layers": 0.0}


def test_values_the_space_cannot_take_any_more_are_left_out():
    space = SearchSpace((CategoricalParameter("optimizer", ("sgd", "adam")), NOISE))
    trials = sampled(space, 12, lambda c: 2.0 * (c["optimizer"] == "sgd") + 0.1 * c["noise"])
    trials += [trial(100 + i, 0.0, {"optimizer": "lamb", "noise": 0.5}) for i in range(3)]
    assert list(parameter_importance(trials, space, "min")) == ["optimizer", "noise"]
    gone = [trial(i, float(i), {"optimizer": "lamb", "noise": 0.1 * i}) for i in range(5)]
    with pytest.raises(NotEnoughTrials, match="this search has none"):
        parameter_importance(gone, space, "min")


def test_another_reported_metric_gets_its_own_ranking():
    space = SearchSpace((NOISE, DRIVERS["integer"][0]))
    trials = [trial(t.trial_id, t.value, t.params, metrics={"acc": 1.0 - t.params["noise"]})
              for t in sampled(space, 40, lambda c: (c["layers"] - 3) ** 2)]
    assert list(parameter_importance(trials, space, "min")) == ["layers", "noise"]
    assert list(parameter_importance(trials, space, "max", metric="acc")) == ["noise", "layers"]


def test_an_unknown_evaluator_is_named_with_the_allowed_ones():
    with pytest.raises(HpnbError, match=r"evaluator 'shap' is not known; allowed: fanova, ped-anova"):
        parameter_importance([], SearchSpace((NOISE,)), "min", "shap")
