"""A metric's axis spans its data: a margin under 20 % of the span, a flat series centred in a
small span, data within [0, 1] or above 0 kept within those bounds; no empty axes before data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hpnb.jupyter.dashboard.figures import make_curves_figure, update_curves
from hpnb.jupyter.dashboard.insight import HistoryPlot
from hpnb.jupyter.dashboard.insight_figures import make_history_figure, update_history
from hpnb.jupyter.dashboard.scales import value_range

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(st.lists(finite, min_size=2, max_size=30))
def test_an_axis_holds_its_data_with_a_margin_under_a_fifth_of_the_span(values: list[float]):
    low, high = value_range(values)
    assert low <= min(values) and high >= max(values)
    span = max(values) - min(values)
    if span > 1e-6:
        assert (high - low) - span <= 0.2 * span + 1e-9 * max(1.0, abs(high))


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
def test_scores_within_0_and_1_keep_their_axis_within_0_and_1(values: list[float]):
    low, high = value_range(values)
    assert 0.0 <= low <= min(values) and max(values) <= high <= 1.0


def test_four_tied_accuracies_are_centred_in_a_small_span_not_drawn_on_0_to_2():
    low, high = value_range([0.9685] * 4)
    assert low < 0.9685 < high and high - low < 0.05
    assert (low + high) / 2 == pytest.approx(0.9685, abs=1e-4)


def test_the_history_draws_its_scores_range_and_says_what_it_waits_for_before():
    fig = make_history_figure()
    update_history(fig, HistoryPlot([], [], [], []), "accuracy", None)
    assert fig.data == [] and fig.plot_layout["yaxis"]["visible"] is False
    assert "waiting for" in fig.plot_layout["annotations"][0]["text"]
    plot = HistoryPlot([0, 1, 2, 3], [0.9685] * 4, ["COMPLETED"] * 4, [""] * 4, best_x=[0, 3],
                       best_y=[0.9685, 0.9685], shown=4, total=4)
    update_history(fig, plot, "accuracy", None)
    low, high = fig.plot_layout["yaxis"]["range"]
    assert 0.9 < low < 0.9685 < high < 1.0 and "annotations" not in fig.plot_layout


def test_curves_say_what_they_wait_for_until_a_value_is_reported():
    from hpnb.jupyter.dashboard.data import CURVE_GROUPS, CurveGroup

    fig = make_curves_figure()
    update_curves(fig, {group: CurveGroup([], [], []) for group in CURVE_GROUPS}, "loss")
    assert fig.data == [] and "waiting for" in fig.plot_layout["annotations"][0]["text"]


def test_a_contour_over_a_categorical_parameter_is_drawn_as_cells_and_log_ticks_in_one_format():
    from hpnb.core.analysis import contour_data
    from hpnb.core.space import CategoricalParameter, FloatParameter, SearchSpace
    from hpnb.jupyter.dashboard.insight_figures import LOG_TICKS, make_contour_figure, update_contour
    from tests.core.analysis.records import trial

    space = SearchSpace((CategoricalParameter("kernel", ("rbf", "poly", "sigmoid")),
                         FloatParameter("gamma", "logUniform", low=1e-4, high=1e-1)))
    values = [("rbf", 1e-4), ("poly", 1e-3), ("sigmoid", 1e-2), ("rbf", 1e-1), ("poly", 3e-2),
              ("sigmoid", 2e-4)]
    trials = [trial(i, float(i), {"kernel": k, "gamma": g}) for i, (k, g) in enumerate(values)]
    fig = make_contour_figure()
    update_contour(fig, contour_data(trials, space, "gamma", "kernel"), "loss")
    assert fig.data[0]["type"] == "heatmap" and "contours" not in fig.data[0]
    assert fig.plot_layout["xaxis"]["type"] == "log" and fig.plot_layout["xaxis"]["tickformat"] == LOG_TICKS
    assert fig.plot_layout["yaxis"]["ticktext"] == ["rbf", "poly", "sigmoid"]
