"""What each part of the dashboard shows, computed from a real store file (no widgets)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    SearchSpace,
)
from hpnb.core.store import ResultRow, Store
from hpnb.core.summary import ExperimentState
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard import data, static
from hpnb.jupyter.dashboard.model import DashboardModel
from hpnb.views.axes import parameter_axis
from hpnb.views.parcoords import parallel_coordinates

SPACE = SearchSpace((
    FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),
    IntParameter("layers", 1, 4),
    CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
    FixedParameter("batch", 64),
))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "hpnb.sqlite") as opened:
        yield opened


def _experiment(store: Store, mode: str = "min", budget: int = 10):
    return store.create_experiment("demo", {}, metric="loss", mode=mode, strategy="random",
                                   budget=budget, parallel=2)


def _trial(store: Store, exp_id: int, trial_id: int, state: str, value: float | None = None, *,
           lr: float = 1e-3, layers: int = 2, optimizer: str = "adam", start: float = 100.0,
           end: float | None = None, error: str | None = None, parent: int | None = None) -> None:
    store.add_trial(exp_id, trial_id, {"lr": lr, "layers": layers, "optimizer": optimizer, "batch": 64},
                    parent=parent)
    store.update_trial(exp_id, trial_id, state=state, value=value, best=value, start=start, end=end,
                       error=error)


def _report(store: Store, exp_id: int, trial_id: int, losses: list[float], first_seq: int = 1) -> None:
    rows = [ResultRow(trial_id, first_seq + i, first_seq + i - 1, 1000.0 + i, loss,
                      {"loss": loss, "acc": -loss})
            for i, loss in enumerate(losses)]
    store.add_results(exp_id, rows)


def test_header_counts_trials_by_state_and_names_the_best(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "COMPLETED", 0.5, end=110.0)
    _trial(store, exp.id, 1, "COMPLETED", 0.2, lr=0.01, end=120.0)
    _trial(store, exp.id, 2, "FAILED", error="Traceback ...\nValueError: boom")
    _trial(store, exp.id, 3, "STOPPED", 0.9)
    _trial(store, exp.id, 4, "RUNNING")
    exp = store.experiment("demo")
    store.update_experiment(exp.id, state="RUNNING", heartbeat=exp.created + 39.0)  # its driver lives
    exp = store.experiment("demo")

    header = data.header(exp, store.trials(exp.id), now=exp.created + 40.0)

    summary = header.summary
    counts = [summary.count(state)
              for state in (TrialState.COMPLETED, TrialState.FAILED, TrialState.STOPPED, TrialState.RUNNING)]
    assert (summary.done, *counts) == (4, 2, 1, 1, 1)
    assert summary.best_trial == 1 and summary.best_value == pytest.approx(0.2)
    assert summary.best_params["lr"] == pytest.approx(0.01)
    assert summary.elapsed == pytest.approx(40.0)
    # 4 of 10 done in 40 s: 6 more at the same pace take 60 s.
    assert header.eta == pytest.approx(60.0)


def test_header_of_a_finished_search_has_no_eta_and_stops_the_clock(store: Store) -> None:
    exp = _experiment(store, budget=1)
    _trial(store, exp.id, 0, "COMPLETED", 0.5)
    store.update_experiment(exp.id, state="COMPLETED")
    exp = store.experiment("demo")

    header = data.header(exp, store.trials(exp.id), now=exp.created + 10_000)

    assert header.eta is None
    assert header.summary.elapsed == pytest.approx(exp.updated - exp.created)


@pytest.mark.parametrize(("mode", "expected"), [("min", [1, 0, 3, 2]), ("max", [3, 0, 1, 2])])
def test_leaderboard_orders_by_score_for_the_mode_with_unscored_trials_last(
        store: Store, mode: str, expected: list[int]) -> None:
    exp = _experiment(store, mode=mode)
    _trial(store, exp.id, 0, "COMPLETED", 0.5, end=130.0)
    _trial(store, exp.id, 1, "COMPLETED", 0.1)
    _trial(store, exp.id, 2, "RUNNING", None)
    _trial(store, exp.id, 3, "STOPPED", 0.9)

    rows = data.leaderboard_rows(store.trials(exp.id), mode, now=200.0)

    assert [row.trial_id for row in rows] == expected
    assert [row.rank for row in rows] == [1, 2, 3, 0]
    by_id = {row.trial_id: row for row in rows}
    assert by_id[0].duration == pytest.approx(30.0)
    assert by_id[2].duration == pytest.approx(100.0)  # still running: until now
    assert by_id[0].params["optimizer"] == "adam"


def test_failures_carry_their_tracebacks(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "COMPLETED", 0.5)
    _trial(store, exp.id, 1, "FAILED", error="Traceback (most recent call last):\nValueError: boom")

    failed = data.failures(store.trials(exp.id))

    assert [f.trial_id for f in failed] == [1]
    assert "ValueError: boom" in failed[0].error


def test_curves_follow_new_results_incrementally(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "RUNNING")
    _trial(store, exp.id, 1, "RUNNING")
    model = DashboardModel(store.path, exp.id, SPACE)
    _report(store, exp.id, 0, [1.0, 0.8])

    assert model.update() == {0}
    assert model.curves.points(0, "loss") == ([0.0, 1.0], [1.0, 0.8])

    _report(store, exp.id, 0, [0.6], first_seq=3)
    _report(store, exp.id, 1, [2.0])
    assert model.update() == {0, 1}
    assert model.curves.points(0, "loss") == ([0.0, 1.0, 2.0], [1.0, 0.8, 0.6])
    assert model.curves.points(1, "acc") == ([0.0], [-2.0])
    assert model.update() == set()  # nothing new: nothing read twice
    assert model.view().metrics == ["loss", "acc"]
    model.close()


def test_long_curves_are_thinned_but_keep_their_shape_and_last_point() -> None:
    curves = data.Curves(max_points=50)
    rows = [ResultRow(0, seq, seq, 0.0, None, {"loss": 1.0 / seq}) for seq in range(1, 10_001)]

    curves.add(rows)

    xs, ys = curves.points(0, "loss")
    assert len(xs) <= 2 * 50 + 1
    assert xs[0] == 1.0 and xs[-1] == 10_000.0 and ys[-1] == pytest.approx(1e-4)
    assert xs == sorted(xs)


def test_curve_groups_make_running_stand_out_and_fade_stopped_and_failed(store: Store) -> None:
    exp = _experiment(store)
    for trial_id, state in enumerate(["COMPLETED", "RUNNING", "STOPPED", "FAILED", "COMPLETED"]):
        _trial(store, exp.id, trial_id, state, 0.1 * (trial_id + 1))
        _report(store, exp.id, trial_id, [1.0, 0.5])
    model = DashboardModel(store.path, exp.id, SPACE)
    model.update()

    groups = data.curve_groups(model.curves, model.trials, "loss", best_ids={0}, selected_id=4)

    def trials_in(group: str) -> set[str]:
        return {text for text in groups[group].text if text}

    assert trials_in("best") == {"trial 0"}
    assert trials_in("running") == {"trial 1"}
    assert trials_in("faded") == {"trial 2", "trial 3"}
    assert trials_in("selected") == {"trial 4"}
    assert trials_in("completed") == set()
    # two trials in one trace are separated by a gap
    assert groups["faded"].x == [0.0, 1.0, None, 0.0, 1.0]
    model.close()


def test_parallel_coordinates_use_log10_for_log_parameters_and_labels_for_categories(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "COMPLETED", 0.5, lr=1e-3, layers=1, optimizer="sgd")
    _trial(store, exp.id, 1, "COMPLETED", 0.3, lr=1e-2, layers=3, optimizer="rmsprop")
    _trial(store, exp.id, 2, "RUNNING", None)

    coords = parallel_coordinates(SPACE, store.trials(exp.id), "loss", "min")

    labels = [axis.label for axis in coords.axes]
    assert labels == ["lr (log)", "layers", "optimizer", "loss"]  # no axis for the fixed batch
    lr, layers, optimizer, metric = coords.axes
    assert lr.values == pytest.approx([-3.0, -2.0])
    assert lr.range == pytest.approx((-4.0, -1.0))
    assert lr.ticktext == ["1e-4", "1e-3", "1e-2", "1e-1"]
    assert layers.values == [1.0, 3.0] and layers.range == (1.0, 4.0)
    assert optimizer.ticktext == ["sgd", "adam", "rmsprop"]
    assert optimizer.values == [0.0, 2.0]
    assert metric.values == coords.colors == pytest.approx([0.5, 0.3])
    assert coords.trial_ids == [0, 1]  # the running trial has no score yet
    assert coords.reverse_scale is True


def test_parallel_coordinates_without_a_space_infer_axes_from_the_values(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "COMPLETED", 0.5, lr=0.1, optimizer="sgd")
    _trial(store, exp.id, 1, "COMPLETED", 0.3, lr=0.2, optimizer="adam")

    coords = parallel_coordinates(None, store.trials(exp.id), "loss", "max")

    assert [axis.label for axis in coords.axes] == ["lr", "optimizer", "loss"]  # constant ones dropped
    assert coords.axes[1].ticktext == ["adam", "sgd"]
    assert coords.reverse_scale is False


def test_a_category_the_spec_does_not_list_gets_a_tick_after_its_choices() -> None:
    axis = parameter_axis(CategoricalParameter("optimizer", ("sgd", "adam")), ["adam", "rms", None, "sgd"])

    assert axis.ticktext == ["sgd", "adam", "rms"]
    assert axis.values[:2] == [1.0, 2.0] and math.isnan(axis.values[2]) and axis.values[3] == 0.0


def test_an_ordered_list_is_drawn_in_its_order_with_its_values_as_ticks() -> None:
    lr = parameter_axis(OrdinalParameter("lr", (0.1, 0.001, 0.01)), [0.01, None, 0.1])
    assert lr.label == "lr (log)" and lr.ticktext == ["0.001", "0.01", "0.1"]
    assert lr.tickvals == pytest.approx([-3.0, -2.0, -1.0]) and lr.range == pytest.approx((-3.0, -1.0))
    assert lr.values[0] == pytest.approx(-2.0) and math.isnan(lr.values[1])
    wd = parameter_axis(OrdinalParameter("wd", (0, 1e-5, 1e-3)), [1e-3, 0])
    assert (wd.values, wd.tickvals, wd.ticktext) == ([2.0, 0.0], [0.0, 1.0, 2.0], ["0", "1e-05", "0.001"])


def test_lineage_links_a_member_to_the_trial_it_was_copied_from(store: Store) -> None:
    exp = _experiment(store)
    _trial(store, exp.id, 0, "COMPLETED", 0.5)
    _trial(store, exp.id, 1, "RUNNING", None, parent=0)
    _report(store, exp.id, 0, [1.0, 0.9, 0.8])
    store.add_results(exp.id, [ResultRow(1, 1, 3, 0.0, 0.7, {"loss": 0.7})])
    model = DashboardModel(store.path, exp.id, SPACE)
    model.update()

    result = data.lineage(model.curves, model.trials, "loss")

    assert (3.0, 1.0, 0.7) in result.points and len(result.points) == 4
    assert result.exploits == [(2.0, 0.0, 3.0, 1.0)]
    model.close()


def test_static_summary_names_state_counts_best_and_top_trials(store: Store) -> None:
    exp = _experiment(store, budget=3)
    _trial(store, exp.id, 0, "COMPLETED", 0.5, lr=0.001)
    _trial(store, exp.id, 1, "COMPLETED", 0.25, lr=0.01)
    _trial(store, exp.id, 2, "FAILED", error="ValueError: <bad> & worse")
    store.update_experiment(exp.id, state="COMPLETED")
    model = DashboardModel(store.path, exp.id, SPACE)
    model.update()
    view = model.view()

    text = static.summary_text(view.header, view.leaderboard)
    page = static.summary_html(view.header, view.leaderboard, model.param_names, view.failures)

    assert text.splitlines()[:3] == [
        "hpnb search 'demo' (random, minimise loss): COMPLETED",
        "3/3 trials done: 2 completed, 1 failed, 0 stopped, 0 running",
        "best loss = 0.25 (trial 1: lr=0.01, layers=2, optimizer=adam, batch=64)",
    ]
    assert "  1. trial 1: 0.25" in text and "  2. trial 0: 0.5" in text
    assert "<th>lr</th>" in page and "<td>0.01</td>" in page
    assert "ValueError: &lt;bad&gt; &amp; worse" in page  # tracebacks are escaped
    model.close()


def test_view_takes_the_state_the_handle_knows(store: Store) -> None:
    exp = _experiment(store)
    store.update_experiment(exp.id, state="RUNNING")
    model = DashboardModel(store.path, exp.id, SPACE)
    model.update()

    assert model.view(state="INTERRUPTED").header.summary.state is ExperimentState.INTERRUPTED
    model.close()


def test_values_print_short() -> None:
    assert data.format_value(0.000123456) == "0.0001235"
