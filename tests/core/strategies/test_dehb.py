"""The dehb strategy: the shared suite and the paper's behaviour (subpopulations per budget,
mutation from the parent budget's subpopulation, selection per budget)."""

from __future__ import annotations

import numpy as np

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.early_stopping.hyperband import Hyperband
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies.dehb import DEHBStrategy
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite


class TestDEHBSuite(StrategySuite):
    strategy = "dehb"
    optimises = True
    list_trials = 150  # its first brackets draw at random


def _square() -> SearchSpace:
    return SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))


def _point(params: dict[str, float]) -> tuple[float, float]:
    return params["x"], params["y"]


def _asha_dehb(**options: object) -> DEHBStrategy:
    dehb = DEHBStrategy(_square(), seed=0, **options)  # type: ignore[arg-type]
    dehb.use_stopping_rule(ASHA(grace=1, reduction=3, max_t=27))
    return dehb


def test_subpopulations_shrink_by_the_reduction_per_budget() -> None:
    dehb = _asha_dehb(population=9)
    assert [dehb.size(budget) for budget in (1, 3, 9, 27)] == [9, 3, 3, 3]
    assert [dehb.size(b) for b in (1, 3, 9, 27)] == [len(dehb.subpopulation(b)) for b in (1, 3, 9, 27)]


def test_selection_per_budget_replaces_a_target_only_when_better() -> None:
    dehb = _asha_dehb(population=5)
    for tid in range(5):  # the initial subpopulation of the first rung: its design's points
        assert dehb.suggest(tid).info["dehb"] == "random"  # type: ignore[union-attr]
        dehb.report(tid, 1, 1.0 + tid)
    assert dehb.subpopulation(1) == [0, 1, 2, 3, 4]
    challengers = [dehb.suggest(tid) for tid in (5, 6)]
    assert [c.info["target"] for c in challengers] == [0, 1]  # type: ignore[union-attr]
    dehb.report(5, 1, 0.5)  # beats member 0 (1.0)
    dehb.report(6, 1, 9.0)  # loses to member 1 (2.0)
    assert dehb.subpopulation(1) == [5, 1, 2, 3, 4]


def test_a_first_subpopulation_spreads_as_a_latin_hypercube() -> None:
    """Its members take one of ``size`` equal slices of each axis each, for every seed; a second
    strategy with the same seed proposes the same points, another seed others."""

    def first_points(seed: int) -> np.ndarray:
        dehb = DEHBStrategy(_square(), seed=seed, population=8)
        dehb.use_stopping_rule(ASHA(grace=1, reduction=3, max_t=27))
        return np.array([_point(dehb.suggest(tid).params) for tid in range(8)])  # type: ignore[union-attr]

    for seed in range(5):
        points = first_points(seed)
        for axis in range(2):
            assert sorted((points[:, axis] * 8).astype(int)) == list(range(8)), points
    assert np.array_equal(first_points(0), first_points(0))
    assert not np.array_equal(first_points(0), first_points(1))


def test_a_promoted_trial_joins_the_next_budget_in_place_of_its_worst_member() -> None:
    dehb = _asha_dehb(population=9)
    for tid in range(6):
        dehb.suggest(tid)
        dehb.report(tid, 3, [0.5, 0.4, 0.3, 0.2, 0.1, 0.9][tid])  # every one reached rung 3 (3 places)
    # 0, 1, 2 take the places; 3 replaces 0 (the worst, 0.5), 4 replaces 1 (0.4); 5 beats none
    assert dehb.subpopulation(3) == [3, 4, 2]


def test_mutation_draws_from_the_parent_budget() -> None:
    """With F = 0 and every coordinate from the mutant, a challenger is a member of the subpopulation
    it mutates from: under hyperband, a trial starting at rung 3 mutates rung 1's members."""
    rule = Hyperband(grace=1, reduction=3, max_t=27, seed=0)
    dehb = DEHBStrategy(_square(), seed=0, population=5, mutation=0.0, crossover=1.0)
    dehb.use_stopping_rule(rule)
    first_rung = [tid for tid in range(200) if rule.bracket_of(tid) == 0][:5]
    later = next(tid for tid in range(200) if rule.bracket_of(tid) == 1 and tid > max(first_rung))
    points = {}
    for tid in first_rung:
        points[tid] = _point(dehb.suggest(tid).params)  # type: ignore[union-attr]
        dehb.report(tid, 1, float(tid))
    suggestion = dehb.suggest(later)
    assert suggestion is not None
    assert suggestion.info["budget"] == 3 and suggestion.info["model"] == 1
    assert _point(suggestion.params) in points.values()


def test_under_asha_the_first_rung_mutates_the_highest_budget_with_three_members() -> None:
    dehb = _asha_dehb(population=5, mutation=0.0, crossover=1.0)
    promoted = {}
    for tid in range(8):
        params = dehb.suggest(tid).params  # type: ignore[union-attr]
        dehb.report(tid, 1, float(tid))
        if tid in (1, 3, 6):  # the rule let these go on to rung 9
            dehb.report(tid, 9, float(tid))
            promoted[tid] = _point(params)
    suggestion = dehb.suggest(8)
    assert suggestion is not None and suggestion.info["model"] == 9
    assert _point(suggestion.params) in promoted.values()


def test_dehb_approaches_the_optimum_with_learning_curves() -> None:
    """Trials stopped by ASHA at low rungs: later challengers lie nearer (0.7, 0.2) than random ones."""
    dehb = _asha_dehb(population=10)
    late = []
    for tid in range(120):
        params = dehb.suggest(tid).params  # type: ignore[union-attr]
        loss = (params["x"] - 0.7) ** 2 + (params["y"] - 0.2) ** 2
        dehb.report(tid, 1, loss + 0.1)
        dehb.report(tid, 3, loss)
        dehb.observe(tid, loss, TrialState.STOPPED)
        if tid >= 90:
            late.append(np.hypot(params["x"] - 0.7, params["y"] - 0.2))
    assert float(np.median(late)) < 0.15, late
