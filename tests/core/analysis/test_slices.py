from __future__ import annotations

import math

import numpy as np
import pytest

from hpnb.core.analysis import NotEnoughTrials, contour_data, contour_pair, parameter_slices
from hpnb.core.analysis.slices import Axis
from hpnb.core.errors import HpnbError
from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    SearchSpace,
)
from tests.core.analysis.records import sampled, trial

SPACE = SearchSpace((
    FloatParameter("lr", "logUniform", low=1e-5, high=1e-1),
    IntParameter("layers", 1, 4),
    IntParameter("units", 16, 512, log=True),
    CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
    FloatParameter("dropout", "normal", mu=0.3, sigma=0.1),
    FixedParameter("batch", 64),
))


def _loss(config):
    return (math.log10(config["lr"]) + 3) ** 2 + config["layers"] + (config["optimizer"] == "sgd")


def test_one_slice_per_varied_parameter_with_its_axis():
    slices = parameter_slices(sampled(SPACE, 12, _loss), SPACE)
    assert [s.axis for s in slices] == [
        Axis("lr", "float", True), Axis("layers", "int", False), Axis("units", "int", True),
        Axis("optimizer", "categorical", False, ("sgd", "adam", "rmsprop")), Axis("dropout", "float", False),
    ]


def test_a_slice_holds_the_finished_scored_trials_values_and_scores():
    trials = [
        trial(0, 0.5, {"lr": 0.01, "optimizer": "adam"}),
        trial(1, None, {"lr": 0.02, "optimizer": "sgd"}, state="FAILED"),
        trial(2, 0.7, {"lr": 0.03, "optimizer": "sgd"}, state="STOPPED"),
        trial(3, 0.1, {"lr": 0.04, "optimizer": "sgd"}, state="RUNNING"),
        trial(4, 0.2, {"optimizer": "rmsprop"}),  # lr absent: a conditional parameter
    ]
    space = SearchSpace(tuple(SPACE[name] for name in ("lr", "optimizer")))
    lr, optimizer = parameter_slices(trials, space)
    assert (lr.trial_ids, lr.values, lr.scores) == ((0, 2), (0.01, 0.03), (0.5, 0.7))
    assert (optimizer.trial_ids, optimizer.values) == ((0, 2, 4), ("adam", "sgd", "rmsprop"))


def test_the_contour_pair_is_the_two_most_important_else_the_first_two():
    assert contour_pair(SPACE, {"optimizer": 0.6, "batch": 0.3, "lr": 0.1}) == ("optimizer", "lr")
    assert contour_pair(SPACE) == ("lr", "layers")
    assert contour_pair(SearchSpace((SPACE["lr"], FixedParameter("batch", 64)))) is None


def test_contour_grid_log_axis_and_categories():
    trials = sampled(SPACE, 30, _loss)
    contour = contour_data(trials, SPACE, "lr", "optimizer", resolution=25)
    assert contour.x == Axis("lr", "float", True) and contour.y.choices == ("sgd", "adam", "rmsprop")
    lrs = [t.params["lr"] for t in trials]
    assert contour.x_grid[0] == pytest.approx(min(lrs)) and contour.x_grid[-1] == pytest.approx(max(lrs))
    ratios = np.diff(np.log(contour.x_grid))
    assert np.allclose(ratios, ratios[0])  # geometric steps on a log axis
    assert contour.y_grid == (0.0, 1.0, 2.0)
    assert np.array(contour.z).shape == (3, 25)
    positions = {"sgd": 0.0, "adam": 1.0, "rmsprop": 2.0}
    assert contour.y_values == tuple(positions[t.params["optimizer"]] for t in trials)


def test_contour_of_few_integers_has_a_line_per_value_and_takes_the_scores_at_the_trials():
    space = SearchSpace((SPACE["layers"], FloatParameter("x", low=0.0, high=1.0)))
    points = [(1, 0.0, 5.0), (4, 1.0, 1.0), (2, 0.5, 3.0), (4, 0.0, 2.0)]
    trials = [trial(i, score, {"layers": layers, "x": x}) for i, (layers, x, score) in enumerate(points)]
    contour = contour_data(trials, space, "layers", "x", resolution=5)
    assert contour.x_grid == (1.0, 2.0, 3.0, 4.0) and contour.y_grid == (0.0, 0.25, 0.5, 0.75, 1.0)
    z = np.array(contour.z)
    assert (z[0, 0], z[4, 3], z[2, 1], z[0, 3]) == (5.0, 1.0, 3.0, 2.0)
    assert z.min() >= 1.0 and z.max() <= 5.0  # weighted means stay within what was measured
    assert 2.0 < z[0, 2] < 5.0  # between two measured trials


def test_contour_needs_two_different_varied_parameters_and_enough_trials():
    trials = sampled(SPACE, 5, _loss)
    with pytest.raises(HpnbError, match=r"'lrr' is not a varied parameter of this search; did you mean 'lr'"):
        contour_data(trials, SPACE, "lrr", "layers")
    with pytest.raises(HpnbError, match="'batch' is not a varied parameter"):
        contour_data(trials, SPACE, "lr", "batch")
    with pytest.raises(HpnbError, match="x and y are both 'lr'"):
        contour_data(trials, SPACE, "lr", "lr")
    with pytest.raises(NotEnoughTrials) as raised:
        contour_data(trials[:2], SPACE, "lr", "layers")
    assert str(raised.value) == "a contour needs at least 3 finished trials; this search has 2"


def test_many_integers_get_integer_grid_lines_only():
    space = SearchSpace((IntParameter("units", 1, 1000, log=True), FloatParameter("x", low=0.0, high=1.0)))
    trials = [trial(i, float(i), {"units": units, "x": i / 4}) for i, units in enumerate([1, 10, 100, 1000])]
    grid = contour_data(trials, space, "units", "x", resolution=20).x_grid
    assert grid[0] == 1.0 and grid[-1] == 1000.0 and len(grid) <= 20
    assert all(value == int(value) for value in grid) and list(grid) == sorted(set(grid))


def test_a_categorical_axis_is_not_interpolated_across_its_categories():
    kernel = CategoricalParameter("kernel", choices=("rbf", "poly", "sigmoid"))
    space = SearchSpace((kernel, FloatParameter("x", low=0.0, high=1.0)))
    points = [("rbf", 0.0, 1.0), ("rbf", 1.0, 1.0), ("poly", 0.5, 9.0), ("poly", 0.0, 9.0), ("rbf", 0.5, 1.0)]
    trials = [trial(i, score, {"kernel": k, "x": x}) for i, (k, x, score) in enumerate(points)]
    contour = contour_data(trials, space, "x", "kernel", resolution=5)
    z = np.array(contour.z)
    assert np.all(z[0] == 1.0) and np.all(z[1] == 9.0)  # each category's row weighs its own trials only
    assert np.all(np.isnan(z[2]))  # no trial with sigmoid: no cell, rather than a blend of the others


def test_ordered_lists_are_numbers_in_order_on_their_scale_and_contours_run_between_their_values():
    space = SearchSpace((OrdinalParameter("batch", (128, 32, 64)),
                         OrdinalParameter("dropout", (0.6, 0.0, 0.3)),
                         OrdinalParameter("wd", (0, 1e-5, 1e-4, 1e-3))))
    points = [(32, 0.0, 0, 3.0), (128, 0.6, 1e-3, 1.0), (64, 0.3, 1e-5, 2.0), (128, 0.0, 1e-4, 1.5)]
    trials = [trial(i, score, {"batch": b, "dropout": d, "wd": w})
              for i, (b, d, w, score) in enumerate(points)]
    batch, dropout, wd = parameter_slices(trials, space)
    assert (batch.axis, dropout.axis) == (Axis("batch", "int", True), Axis("dropout", "float", False))
    assert wd.axis == Axis("wd", "categorical", False, (0, 1e-5, 1e-4, 1e-3))  # by rank: its order alone
    contour = contour_data(trials, space, "batch", "wd", resolution=5)
    assert contour.x_grid == (32.0, 64.0, 128.0) and contour.y_grid == (0.0, 1.0, 2.0, 3.0)
    assert contour.y_values == (0.0, 3.0, 1.0, 2.0)
    z = np.array(contour.z)
    assert 1.0 < z[1, 1] < 3.0  # an ordered list is interpolated across its values, not kept apart
