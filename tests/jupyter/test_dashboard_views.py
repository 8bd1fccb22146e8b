"""The dashboard's table, insight tabs, log panel and copied cell, from a real store file (no front end).

The large-search tests write 10,000 trials and 200,000 results and check what would be
sent to the front end is bounded: a page of rows, a few thousand markers, a few thousand
parallel-coordinate lines, a bounded number of curve points.
"""

from __future__ import annotations

import math
import random
import threading
import time
from pathlib import Path

import pytest

import hpnb
from hpnb.core.analysis.history import optimization_history
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store, TrialRecord
from hpnb.core.trial_output import TrialOutput
from hpnb.jupyter.dashboard import data, figures, plot_samples, table, trial_log
from hpnb.jupyter.dashboard.copy_cell import best_cell_code
from hpnb.jupyter.dashboard.model import ROWS_PER_UPDATE, DashboardModel
from hpnb.jupyter.dashboard.throttle import Throttled
from hpnb.views.axes import integer_ticks
from hpnb.views.parcoords import parallel_coordinates, parcoords_trace
from hpnb.views.sampling import parcoords_sample
from tests.waiting import wait_until

SPEC = {
    "metric": "loss", "mode": "min", "strategy": "random", "trials": 10,
    "parameters": {"lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1},
                   "layers": {"type": "int", "min": 1, "max": 4}, "opt": ["sgd", "adam"]},
}  # fmt: skip
SPACE = parse_spec(SPEC).space


def _loss(lr: float, layers: int, opt: str) -> float:
    return (math.log10(lr) + 2.5) ** 2 + 0.1 * layers + (0.2 if opt == "sgd" else 0.0)


def write_search(path: Path, trials: int, steps: int, name: str = "big") -> None:
    """``trials`` completed trials of ``steps`` reports each (trial i ends at 1000 + i)."""
    rng = random.Random(0)
    with Store(path) as store:
        exp = store.create_experiment(name, parse_spec(SPEC).to_dict(), metric="loss", mode="min",
                                      strategy="random", budget=trials, parallel=2)
        rows = []
        with store.batch():
            for i in range(trials):
                params = {"lr": 10 ** rng.uniform(-4, -1), "layers": rng.randint(1, 4),
                          "opt": rng.choice(["sgd", "adam"])}
                store.add_trial(exp.id, i, params)
                final = _loss(**params)
                losses = [final + 1 / (s + 1) for s in range(steps)]
                rows += [ResultRow(i, s + 1, s, 1000.0 + i, loss, {"loss": loss})
                         for s, loss in enumerate(losses)]
                value = final + 1 / steps
                store.update_trial(exp.id, i, state="COMPLETED", start=999.0 + i, end=1000.0 + i, value=value,
                                   best=value, metrics={"loss": value}, last_step=steps - 1)
            store.add_results(exp.id, rows)
        store.update_experiment(exp.id, state="COMPLETED")


@pytest.fixture(scope="module")
def large_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "hpnb.sqlite"
    write_search(path, trials=10_000, steps=20)
    return path


def _record(trial_id: int, state: str, value: float | None, **params: object) -> TrialRecord:
    return TrialRecord(1, trial_id, dict(params), state, 10.0 * trial_id, 10.0 * trial_id + 5, None, None, 0,
                       None, None, value, value, {}, None, None)


# -- the table ---------------------------------------------------------------------------


def test_the_table_sorts_by_any_column_and_pages() -> None:
    trials = [_record(0, "COMPLETED", 0.5, lr=0.01, layers=2), _record(1, "FAILED", None, lr=0.1, layers=1),
              _record(2, "COMPLETED", 0.2, lr=0.001, layers=3), _record(3, "RUNNING", 0.9, lr=0.05, layers=4)]

    by_rank = table.table_page(trials, "min", "RUNNING", ["lr", "layers"], "loss", now=100.0)
    by_lr = table.table_page(trials, "min", "RUNNING", ["lr", "layers"], "loss", now=100.0,
                             sort="param:lr", descending=True)
    second = table.table_page(trials, "min", "RUNNING", ["lr", "layers"], "loss", now=100.0,
                              sort="trial", page=1, page_rows=3)

    assert [label for _, label in by_rank.columns] == [
        "rank", "trial", "loss", "state", "duration", "started", "lr", "layers"]
    assert by_rank.trial_ids == [2, 0, 3, 1]
    assert [row[0] for row in by_rank.rows] == ["1", "2", "3", ""]  # a failed trial has no rank
    assert by_rank.states == ["COMPLETED", "COMPLETED", "RUNNING", "FAILED"]
    assert by_rank.rows[0][2] == "0.2" and by_rank.rows[0][6] == "0.001"
    assert by_lr.trial_ids == [1, 3, 0, 2]
    assert (second.trial_ids, second.page, second.pages, second.total) == ([3], 1, 2, 4)


def test_the_table_clamps_the_page_and_forgets_an_unknown_column() -> None:
    trials = [_record(i, "COMPLETED", float(i), x=i) for i in range(5)]

    page = table.table_page(trials, "max", "COMPLETED", ["x"], "acc", now=0.0, sort="param:gone", page=99,
                            page_rows=2)

    assert page.sort == "rank" and page.page == 2 and page.trial_ids == [0]


def test_an_interrupted_search_shows_its_running_trials_as_interrupted() -> None:
    page = table.table_page([_record(0, "RUNNING", None, x=1)], "min", "INTERRUPTED", ["x"], "loss", now=0.0)

    assert page.states == ["INTERRUPTED"]


def test_a_large_search_sends_one_page_of_the_table(large_store: Path) -> None:
    model = DashboardModel(large_store, 1, SPACE)
    model.update()

    page = table.table_page(model.trials, "min", "COMPLETED", model.param_names, "loss", now=time.time(),
                            sort="param:layers", page=3)

    assert len(page.rows) == table.PAGE_ROWS and page.total == 10_000
    assert page.pages == math.ceil(10_000 / table.PAGE_ROWS)
    model.close()


# -- axes --------------------------------------------------------------------------------


def test_integer_parameters_get_integer_ticks_only() -> None:
    space = SearchSpace((IntParameter("layers", 1, 4), IntParameter("units", 8, 512)))
    trials = [_record(0, "COMPLETED", 0.3, layers=1, units=8),
              _record(1, "COMPLETED", 0.4, layers=4, units=512)]

    layers, units, _ = parallel_coordinates(space, trials, "loss", "min").axes

    assert layers.tickvals == [1.0, 2.0, 3.0, 4.0] and layers.ticktext == ["1", "2", "3", "4"]
    assert units.tickvals is not None and all(t == int(t) for t in units.tickvals)
    assert len(units.tickvals) <= 10
    assert integer_ticks(0, 27) == [0.0, 5.0, 10.0, 15.0, 20.0, 25.0]


def test_the_metric_axis_and_the_colour_scale_span_the_scores_drawn() -> None:
    space = SearchSpace((FloatParameter("eta", "logUniform", low=1e-4, high=1.0),))
    accuracies = [0.87, 0.91, 0.95, 0.97]
    trials = [_record(i, "COMPLETED", acc, eta=0.01) for i, acc in enumerate(accuracies)]

    coords = parallel_coordinates(space, trials, "val_accuracy", "max")

    assert coords.axes[-1].range == pytest.approx((0.87, 0.97))
    assert coords.color_range == pytest.approx((0.87, 0.97))


def test_a_single_score_still_gets_a_narrow_colour_range_around_it() -> None:
    space = SearchSpace((CategoricalParameter("opt", ("sgd", "adam")),))

    coords = parallel_coordinates(space, [_record(0, "COMPLETED", 0.9, opt="adam")], "acc", "max")

    low, high = coords.color_range
    assert low < 0.9 < high and high - low < 0.05
    assert coords.axes[0].ticktext == ["sgd", "adam"]


def test_the_parallel_coordinates_mark_the_selected_trial_and_colour_the_best_brightest() -> None:
    space = SearchSpace((IntParameter("layers", 1, 4),))
    trials = [_record(i, "COMPLETED", loss, layers=i + 1) for i, loss in enumerate([0.5, 0.2, 0.9])]
    coords = parallel_coordinates(space, trials, "loss", "min")
    fig = figures.make_parcoords_figure()

    figures.update_parcoords(fig, parcoords_trace(coords, selected=2))

    trace = fig.data[0]
    assert trace["selected"] == {"trial": 2, "index": 2}
    assert [dim["values"][2] for dim in trace["dimensions"]] == [3.0, 0.9]  # its values, where it points
    assert trace["line"]["color"] == [pytest.approx(0.5714, abs=1e-4), 1.0, 0.0]  # lowest loss brightest
    figures.update_parcoords(fig, parcoords_trace(coords, selected=7))  # not drawn: no red line
    assert "selected" not in fig.data[0]


# -- bounded views of a large search -----------------------------------------------------


def test_a_large_search_is_read_in_bounded_steps(large_store: Path) -> None:
    model = DashboardModel(large_store, 1, SPACE)

    model.update()
    first = sum(len(s.xs) for s in model.curves.series.values())
    versions = [model.version]
    while model.behind:
        model.update()
        versions.append(model.version)

    assert first <= ROWS_PER_UPDATE
    assert len(set(versions)) == 200_000 // ROWS_PER_UPDATE  # each read that brought rows: a new version
    model.update()
    assert model.version == versions[-1] and not model.behind  # nothing new: nothing to redraw
    model.close()


def test_the_views_of_a_large_search_send_a_bounded_number_of_points(large_store: Path) -> None:
    model = DashboardModel(large_store, 1, SPACE)
    model.update()
    while model.behind:
        model.update()
    trials = model.trials

    points = optimization_history(trials, "min")
    history = plot_samples.history_plot(points, selected=4321)
    sample = parcoords_sample(trials, "min", selected=4321)
    coords = parallel_coordinates(SPACE, sample.trials, "loss", "min")
    groups = data.curve_groups(model.curves, trials, "loss", best_ids={history.best_x[-1]}, selected_id=None)
    slice_points = plot_samples.importance_trials(trials)

    assert history.total == 10_000
    assert len(history.trial_ids) <= plot_samples.MAX_MARKERS + len(history.best_x)
    assert set(history.best_x[:-1]) <= set(history.trial_ids) and 4321 in history.trial_ids
    assert history.best_y[-1] == min(t.value for t in trials)
    assert len(coords.trial_ids) <= 2001 and 4321 in coords.trial_ids
    assert sum(1 for g in groups.values() for x in g.x if x is not None) <= data.MAX_CURVE_POINTS
    assert len(slice_points) == plot_samples.IMPORTANCE_TRIALS
    model.close()


def test_thinned_curves_keep_their_ends() -> None:
    xs = [float(i) for i in range(1000)]

    kept_x, kept_y = data.thinned(xs, [x * 2 for x in xs], 10)

    assert len(kept_x) == 10 and kept_x[0] == 0.0 and kept_x[-1] == 999.0 and kept_y[-1] == 1998.0


# -- the log panel and the copied cell ---------------------------------------------------


def test_the_log_panel_shows_what_a_trial_printed_escaped(tmp_path: Path) -> None:
    path = tmp_path / "hpnb.sqlite"
    write_search(path, trials=2, steps=2, name="logs")
    with Store(path) as store:
        exp = store.experiment("logs")
        store.update_trial(exp.id, 1, state="FAILED", error="Traceback ...\nValueError: <bad>")
        store.set_trial_output(exp.id, 1, TrialOutput(stdout="epoch 1 <ok>\n", stderr="warning: slow\n",
                                                       stdout_bytes=13, stderr_bytes=14, worker="tcp://w:1",
                                                       peak_memory_bytes=300 * 2**20))

    page = trial_log.log_html(hpnb.load("logs", store=path).logs(1))

    assert "trial 1" in page and "FAILED" in page and "tcp://w:1" in page and "300.0 MiB" in page
    assert "epoch 1 &lt;ok&gt;" in page and "warning: slow" in page
    assert "ValueError: &lt;bad&gt;" in page


def test_the_copied_cell_reproduces_the_best_trial() -> None:
    def train(lr: float, layers: int, opt: str) -> float:
        return _loss(lr, layers, opt)

    def train_config(config: dict[str, object]) -> float:
        return _loss(**config)  # type: ignore[arg-type]

    params = {"lr": 0.0031622776601683794, "layers": 2, "opt": "adam"}
    value = _loss(**params)  # type: ignore[arg-type]
    for function, takes_config in ((train, False), (train_config, True)):
        code = best_cell_code(function.__name__, params, trial_id=7, metric="loss", value=value, search="s",
                              takes_config=takes_config)
        namespace = {function.__name__: function}
        *body, call = code.splitlines()
        exec("\n".join(body), namespace)  # the cell the button inserts, run as the notebook would
        assert eval(call, namespace) == value  # bit for bit: floats written with repr
        assert namespace["best_params"] == params


def test_an_unknown_objective_gets_a_placeholder_name() -> None:
    code = best_cell_code(None, {"x": 1}, trial_id=0, metric="loss", value=None, search="s")

    assert code.splitlines()[-1] == "objective(**best_params)"


def test_throttled_work_runs_once_for_a_burst_of_requests() -> None:
    runs: list[float] = []
    release = threading.Event()

    def work() -> None:
        runs.append(time.monotonic())
        release.wait(5.0)

    throttled = Throttled(work, interval=0.0)
    throttled.request()
    wait_until(lambda: runs, message="the first run starting")
    for _ in range(10):
        throttled.request()
    release.set()
    throttled.join(10.0)

    assert len(runs) == 2  # the one running, then one for all ten requests made meanwhile


# -- the plots behind the selector (widgets without a front end) -------------------------


def _tabs(path: Path, name: str, strategy: str = "random"):
    from hpnb.jupyter.dashboard.tabs import InsightTabs

    with Store(path, readonly=True) as store:
        experiment_id = store.experiment(name).id
    model = DashboardModel(path, experiment_id, SPACE)
    model.update()
    tabs = InsightTabs(model, strategy, lambda: None)
    tabs.render(model.view())
    return tabs, model


def test_one_value_per_trial_gets_the_history_and_no_empty_curves(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.tabs import CURVES, HISTORY, IMPORTANCE

    path = tmp_path / "hpnb.sqlite"
    write_search(path, trials=6, steps=1, name="final-only")  # one report per trial, like a plain return

    tabs, model = _tabs(path, "final-only")
    history = tabs.figures[HISTORY]

    assert CURVES not in tabs.selector.options and IMPORTANCE in tabs.selector.options
    assert history.data[0]["x"] == [0, 1, 2, 3, 4, 5]
    assert history.data[1]["y"][-1] == min(t.value for t in model.trials)  # best so far ends at the best
    assert history.plot_layout["xaxis"]["dtick"] == 1
    assert history.plot_layout["xaxis"]["tickformat"] == "d"
    model.close()


def test_importance_with_too_few_trials_says_so(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.tabs import IMPORTANCE

    path = tmp_path / "hpnb.sqlite"
    write_search(path, trials=2, steps=3, name="two")
    tabs, model = _tabs(path, "two")

    tabs.selector.value = IMPORTANCE
    tabs._analysis.join(240.0)

    assert "needs at least 4 completed trials; this search has 2" in tabs.notes[IMPORTANCE].value
    assert not tabs.figures[IMPORTANCE].data[0]["x"]
    model.close()


def test_importance_is_drawn_off_the_main_thread_with_a_bar_per_parameter(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.tabs import IMPORTANCE

    path = tmp_path / "hpnb.sqlite"
    write_search(path, trials=30, steps=2, name="rated")
    tabs, model = _tabs(path, "rated")
    threads: list[str] = []
    original = tabs._analysis._rate
    tabs._analysis._rate = lambda *args: (threads.append(threading.current_thread().name), original(*args))[1]

    tabs.selector.value = IMPORTANCE
    tabs._analysis.join(240.0)

    assert threads and threading.main_thread().name not in threads
    assert sorted(tabs.figures[IMPORTANCE].data[0]["y"]) == ["layers", "lr", "opt"]
    assert sum(tabs.figures[IMPORTANCE].data[0]["x"]) == pytest.approx(1.0)
    assert tabs.figures[IMPORTANCE].plot_layout["title"]["text"].startswith("fANOVA importance")

    tabs.evaluator.value = "ped-anova"  # the other evaluator, chosen above the bars
    tabs._analysis.join(240.0)
    assert tabs.figures[IMPORTANCE].plot_layout["title"]["text"].startswith("PED-ANOVA importance")
    assert sorted(tabs.figures[IMPORTANCE].data[0]["y"]) == ["layers", "lr", "opt"]
    model.close()


def test_the_lineage_plot_has_integer_ticks_on_members_and_steps() -> None:
    from hpnb.jupyter.dashboard import figures

    fig = figures.make_lineage_figure()
    figures.update_lineage(fig, [(0.0, 2.0, 0.5), (3.0, 2.0, 0.6), (1.0, 3.0, 0.4), (4.0, 5.0, 0.9)],
                           [(3.0, 2.0, 4.0, 5.0)])

    assert fig.plot_layout["yaxis"]["dtick"] == 1 and fig.plot_layout["yaxis"]["tickformat"] == "d"
    assert fig.plot_layout["xaxis"]["dtick"] == 1


def test_the_history_runs_by_end_time_when_asked(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.insight_figures import plot_time
    from hpnb.jupyter.dashboard.tabs import HISTORY

    path = tmp_path / "hpnb.sqlite"
    write_search(path, trials=6, steps=1, name="ends")
    ends = [1005.0, 1001.0, 1004.0, 1000.0, 1003.0, 1002.0]  # trial i ended at ends[i]
    with Store(path) as store:
        experiment = store.experiment("ends")
        for trial_id, end in enumerate(ends):
            store.update_trial(experiment.id, trial_id, end=end)
    tabs, model = _tabs(path, "ends")
    history = tabs.figures[HISTORY]
    by_trial = history.data[0]["x"]

    tabs.history_order.value = "end"

    markers, best, _ = history.data
    in_end_order = sorted(range(6), key=lambda i: ends[i])
    xaxis = history.plot_layout["xaxis"]
    assert xaxis["type"] == "date" and xaxis["title"]["text"] == "end time"
    assert markers["x"] == [plot_time(ends[i]) for i in in_end_order]
    assert [text.split()[1] for text in markers["text"]] == [str(i) for i in in_end_order]
    values = {t.trial_id: t.value for t in model.trials}
    running_best = [min(values[i] for i in in_end_order[:k + 1]) for k in range(6)]
    assert best["y"][-1] == running_best[-1] and best["y"] == sorted(best["y"], reverse=True)
    assert set(best["y"]) == set(running_best)

    tabs.history_order.value = "trial"

    assert history.data[0]["x"] == by_trial == [0, 1, 2, 3, 4, 5]
    xaxis = history.plot_layout["xaxis"]
    assert xaxis["type"] == "linear" and xaxis["title"]["text"] == "trial"
    model.close()


def test_an_exploit_is_a_short_link_at_its_step_and_the_colour_bar_names_the_metric() -> None:
    from hpnb.jupyter.dashboard import figures

    events = [{"kind": "pause", "data": {"trial": 1}},
              {"kind": "exploit",
               "data": {"member": 2, "step": 20, "donor": 0, "donor_step": 20, "params": {}}}]
    assert figures.exploit_links(events) == [(20.0, 0.0, 20.0, 2.0)]  # at step 20, not from step 1 to 40
    fig = figures.make_lineage_figure()
    figures.update_lineage(fig, [(1.0, 0.0, 0.9), (20.0, 0.0, 0.95), (21.0, 2.0, 0.95)],
                           figures.exploit_links(events), "accuracy")
    assert fig.data[0]["marker"]["colorbar"]["title"]["text"] == "accuracy"
    assert fig.plot_layout["legend"]["orientation"] == "h"  # above the plot, clear of the colour bar
