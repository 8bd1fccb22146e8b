"""What bohb and dehb share: the budgets of the stopping rule, results per budget, Parzen densities,
and the spec's pairing of a multi-fidelity strategy with a bracketed early-stopping rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hpnb.core.early_stopping.asha import ASHA
from hpnb.core.early_stopping.hyperband import Hyperband
from hpnb.core.early_stopping.median import MedianStopping
from hpnb.core.errors import SpecError
from hpnb.core.spec.experiment import parse_spec
from hpnb.core.strategies.fidelity import END, FidelityRecord, Rungs
from hpnb.core.strategies.kde import Parzen

NO_CATEGORIES = np.zeros((0,), dtype=int)


def test_budgets_are_the_rungs_and_the_top() -> None:
    assert Rungs.of(ASHA(grace=1, reduction=3, max_t=27)).budgets() == [1, 3, 9, 27]
    assert Rungs.of(Hyperband(grace=2, reduction=2, max_t=16)).budgets() == [2, 4, 8, 16]
    assert Rungs.of(None).budgets()[:3] == [1, 3, 9] and Rungs.of(None).budgets()[-1] == END


def test_a_trial_starts_at_its_hyperband_bracket_first_rung() -> None:
    rule = Hyperband(grace=1, reduction=3, max_t=27, seed=0)
    rungs = Rungs.of(rule)
    starts = [rungs.start(tid) for tid in range(40)]
    assert starts == [rule.brackets[rule.bracket_of(tid)].grace for tid in range(40)]
    assert set(starts) == {1, 3, 9, 27}
    assert {Rungs.of(ASHA(max_t=27)).start(tid) for tid in range(10)} == {1}


def test_a_rule_without_rungs_is_refused() -> None:
    with pytest.raises(SpecError) as info:
        Rungs.of(MedianStopping())
    assert info.value.path == "early_stopping"


def test_results_count_at_every_budget_reached_first_value_kept() -> None:
    record = FidelityRecord(Rungs.of(ASHA(grace=1, reduction=3, max_t=9)))
    record.report(0, 1, 0.9)
    record.report(0, 4, 0.5)  # jumps over rung 3: recorded there with this value
    record.report(0, 5, 0.1)  # rung 3 already has its value
    record.report(1, 2, float("nan"))
    record.complete(2, 0.3)
    assert record.at(1) == {0: 0.9, 1: math.inf}
    assert record.at(3) == {0: 0.5}
    assert record.at(9) == {2: 0.3}
    assert record.largest_with(1) == 9 and record.largest_with(2) is None


def test_parzen_density_is_high_near_its_points_and_a_density() -> None:
    points = np.array([[0.2, 0.7], [0.25, 0.75], [0.3, 0.7]])
    density = Parzen.fit(points, np.zeros((3, 0), dtype=int), NO_CATEGORIES)
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 101), np.linspace(0, 1, 101)), -1).reshape(-1, 2)
    values = np.exp(density.log_pdf(grid, np.zeros((len(grid), 0), dtype=int)))
    assert 0.9 < values.mean() < 1.1  # integrates to about 1 over the unit square
    near, far = density.log_pdf(np.array([[0.25, 0.72], [0.9, 0.1]]), np.zeros((2, 0), dtype=int))
    assert near > far + 3


def test_parzen_samples_stay_in_the_cube_and_keep_categories_mostly() -> None:
    x = np.array([[0.0], [0.02], [0.99]])
    c = np.array([[1], [1], [1]])
    density = Parzen.fit(x, c, np.array([4]))
    qx, qc = density.sample(np.random.default_rng(0), 500, widen=3.0)
    assert qx.shape == (500, 1) and ((qx >= 0) & (qx <= 1)).all()
    assert set(np.unique(qc)) <= {0, 1, 2, 3}
    assert (qc == 1).mean() > 0.5


def _spec(strategy: object, early_stopping: object = None) -> dict[str, object]:
    spec = {"metric": "loss", "strategy": strategy, "parameters": {"x": {"min": 0.0, "max": 1.0}}}
    if early_stopping is not None:
        spec["early_stopping"] = early_stopping
    return spec


@pytest.mark.parametrize("name", ["bohb", "dehb"])
def test_spec_without_early_stopping_gets_asha(name: str) -> None:
    assert parse_spec(_spec(name)).early_stopping.rule == "asha"
    kept = parse_spec(_spec(name, {"rule": "none", "max_t": 27})).early_stopping
    assert (kept.rule, dict(kept.options)) == ("asha", {"max_t": 27})
    hyperband = parse_spec(_spec(name, {"rule": "hyperband", "max_t": 27})).early_stopping
    assert hyperband.rule == "hyperband"


@pytest.mark.parametrize("name", ["bohb", "dehb"])
def test_spec_with_a_rule_without_rungs_is_refused(name: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(_spec(name, "median"))
    assert info.value.path == "early_stopping"
    assert "asha, hyperband" in str(info.value) and "median" in str(info.value)
