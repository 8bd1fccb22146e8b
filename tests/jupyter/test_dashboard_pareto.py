"""The cell dashboard of a search with several objectives, from a real store file (no front end).

The stored search has a known front: a model of width ``w`` and depth ``d`` has a loss of
``1 - w + 0.2 (d - 1)`` and a latency of ``10 w + 3 d`` (:mod:`tests.runner.two_objectives`),
so every trial of depth 1 is on the front and the deeper ones are beaten. What each part shows
is checked against the one summary of the search (:mod:`hpnb.core.summary`).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import hpnb
from hpnb.core.objectives import Objective
from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store, TrialRecord
from hpnb.core.summary import pareto_ranks, ranked, summarize
from hpnb.jupyter.dashboard import data, pareto_plot, static, table
from hpnb.jupyter.dashboard.copy_cell import trial_cell_code
from hpnb.jupyter.dashboard.model import DashboardModel
from hpnb.jupyter.dashboard.widgets import title_html
from hpnb.views.parcoords import parallel_coordinates
from hpnb.views.ranking import rank_trials
from hpnb.views.sampling import parcoords_sample
from tests.runner.two_objectives import goals

OBJECTIVES = (Objective("val_loss", "min"), Objective("latency_ms", "min"))
METRICS = [{"name": "val_loss", "mode": "min"}, {"name": "latency_ms", "mode": "min"}]
SPEC = {
    "metrics": METRICS, "strategy": "random", "trials": 12,
    "parameters": {"width": {"min": 0.0, "max": 1.0}, "depth": {"type": "int", "min": 1, "max": 3}},
}  # fmt: skip
SPACE = parse_spec(SPEC).space
#: (width, depth) of the completed trials, in trial order: depth 1 is the front.
MODELS = [(0.5, 1), (0.2, 2), (0.9, 1), (0.4, 3), (0.1, 1), (0.6, 2), (0.7, 1), (0.8, 3), (0.3, 1)]
FRONT = {0, 2, 4, 6, 8}


def write_two_objective_search(path: Path, name: str = "two", models=MODELS, memory: bool = False) -> None:
    """The completed ``models`` (each trial ends at 1000 + its id), then a failed and a running trial.
    ``memory`` adds a third objective, memory_mb (min), of 100 per unit of depth."""
    spec = dict(SPEC, metrics=[*METRICS, *([{"name": "memory_mb", "mode": "min"}] if memory else [])])
    with Store(path) as store:
        exp = store.create_experiment(name, parse_spec(spec).to_dict(), metric="val_loss", mode="min",
                                      strategy="random", budget=len(models) + 2, parallel=2)
        with store.batch():
            for trial_id, (width, depth) in enumerate(models):
                loss, latency = goals(width, depth)
                metrics = {"val_loss": loss, "latency_ms": latency}
                if memory:
                    metrics["memory_mb"] = 100.0 * depth
                store.add_trial(exp.id, trial_id, {"width": width, "depth": depth})
                store.update_trial(exp.id, trial_id, state="COMPLETED", start=999.0 + trial_id,
                                   end=1000.0 + trial_id, value=loss, best=loss, metrics=metrics)
            failed, running = len(models), len(models) + 1
            store.add_trial(exp.id, failed, {"width": 0.05, "depth": 1})
            store.update_trial(exp.id, failed, state="FAILED", start=990.0, end=991.0, error="ValueError: no")
            store.add_trial(exp.id, running, {"width": 0.95, "depth": 2})
            store.update_trial(exp.id, running, state="RUNNING", start=1500.0)
        store.update_experiment(exp.id, state="COMPLETED")


@pytest.fixture
def two(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path)
    with Store(path, readonly=True) as store:
        experiment = store.experiment("two")
        trials = store.trials(experiment.id)
    model = DashboardModel(path, experiment.id, SPACE)
    model.update()
    yield model, experiment, trials
    model.close()


# -- the header and the static summary ----------------------------------------------------------


def test_the_header_names_the_front_instead_of_a_best_value(two) -> None:
    model, experiment, trials = two
    view = model.view(now=2000.0)
    summary = summarize(experiment, trials, 2000.0)

    assert view.header.summary == summary  # the dashboard holds the one summary
    assert view.header.summary.best_value is None and view.header.summary.objectives == OBJECTIVES
    assert {entry["trial_id"] for entry in view.header.summary.front} == FRONT
    title = title_html(view.header.summary)
    assert "Pareto front: 5 trials (val_loss min, latency_ms min): trials 2, 6, 0, 8, 4" in title
    assert "min val_loss, min latency_ms" in title and "best" not in title


def test_a_search_without_a_scored_trial_says_its_front_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path, models=[])
    with Store(path, readonly=True) as store:
        model = DashboardModel(path, store.experiment("two").id, SPACE)
    model.update()

    summary = model.view(now=2000.0).header.summary

    assert pareto_plot.front_text(summary) == "Pareto front: none yet (val_loss min, latency_ms min)"
    model.close()


def test_the_saved_summary_lists_the_front(two) -> None:
    model, _, _ = two
    view = model.view(now=2000.0)

    text = static.summary_text(view.header, view.leaderboard)
    html = static.summary_html(view.header, view.leaderboard, model.param_names)

    lines = text.splitlines()
    assert lines[0] == ("hpnb search 'two' (random, minimise val_loss, minimise latency_ms "
                        "(a Pareto front)): COMPLETED")
    assert lines[2] == "Pareto front: 5 trials (val_loss min, latency_ms min)"
    assert lines[3] == "  trial 2: val_loss=0.1, latency_ms=12 (width=0.9, depth=1)"
    assert len(lines) == 3 + 5 and "best" not in text
    assert "<th>val_loss</th><th>latency_ms</th><th>Pareto rank</th>" in html
    assert "trials 2, 6, 0, 8, 4" in html and "best" not in html


# -- the trials table ---------------------------------------------------------------------------


def test_the_table_has_a_column_per_objective_and_the_pareto_rank_in_the_summary_order(two) -> None:
    model, _, trials = two

    page = table.table_page(trials, "min", "COMPLETED", model.param_names, "val_loss", now=2000.0,
                            objectives=OBJECTIVES)

    labels = [label for _, label in page.columns]
    assert labels == ["rank", "trial", "val_loss", "latency_ms", "Pareto rank", "state", "duration",
                      "started", "width", "depth"]
    assert page.trial_ids[:11] == [t.trial_id for t in ranked(trials, OBJECTIVES)][:11]
    ranks = pareto_ranks(trials, OBJECTIVES)
    by_id = dict(zip(page.trial_ids, page.rows, strict=True))
    for trial_id, rank in ranks.items():
        assert by_id[trial_id][4] == str(rank)
    assert {t for t, row in by_id.items() if row[4] == "0"} == FRONT
    assert by_id[9][2:5] == ["", "", ""] and by_id[9][5] == "FAILED"  # no values: blank, ranked last
    assert by_id[2][2:4] == ["0.1", "12"] and by_id[2][0] == "1"


def test_the_table_sorts_by_any_objective_and_by_the_pareto_rank(two) -> None:
    model, _, trials = two

    def column(sort: str, descending: bool, index: int) -> list[str]:
        page = table.table_page(trials, "min", "COMPLETED", model.param_names, "val_loss", now=2000.0,
                                sort=sort, descending=descending, objectives=OBJECTIVES)
        return [row[index] for row in page.rows]

    latency = [float(v) for v in column("objective:latency_ms", False, 3) if v]
    assert latency == sorted(latency) and len(latency) == 9
    worst_first = [float(v) for v in column("objective:latency_ms", True, 3) if v]
    assert worst_first == sorted(latency, reverse=True)
    assert column("objective:latency_ms", True, 3)[-2:] == ["", ""]  # without values: last either way
    ranks = [int(v) for v in column("pareto_rank", False, 4) if v]
    assert ranks == sorted(ranks) and ranks[0] == 0
    assert [int(v) for v in column("pareto_rank", True, 4) if v] == sorted(ranks, reverse=True)
    widths = [float(v) for v in column("param:width", False, 8)]
    assert widths == sorted(widths)


# -- the Pareto plot ----------------------------------------------------------------------------


def test_the_pareto_plot_highlights_the_front_and_steps_through_it(two) -> None:
    _, _, trials = two

    plot = pareto_plot.pareto_plot(trials, OBJECTIVES, selected=5)

    assert set(plot.front.trial_ids) == FRONT and set(plot.others.trial_ids) == {1, 3, 5, 7}
    along = sorted(FRONT, key=lambda i: goals(*MODELS[i])[0])
    assert plot.line_x == [goals(*MODELS[i])[0] for i in along] and plot.line_shape == "hv"
    assert plot.line_y == sorted(plot.line_y, reverse=True)  # both minimised: the line falls
    assert plot.selected == goals(*MODELS[5])
    hover = dict(zip(plot.others.trial_ids, plot.others.hover, strict=True))
    rank = pareto_ranks(trials, OBJECTIVES)[5]
    assert hover[5] == f"trial 5 (Pareto rank {rank})<br>val_loss 0.6<br>latency_ms 12"
    assert plot.front.hover[0].startswith(f"trial {plot.front.trial_ids[0]} (on the front)")
    assert (plot.shown, plot.scored) == (9, 9)


def test_any_pair_of_three_objectives_is_drawn_with_the_rank_over_all_three(tmp_path: Path) -> None:
    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path, memory=True)
    with Store(path, readonly=True) as store:
        trials = store.trials(store.experiment("two").id)
    objectives = (*OBJECTIVES, Objective("memory_mb", "min"))

    plot = pareto_plot.pareto_plot(trials, objectives, x="memory_mb", y="val_loss")

    assert (plot.x.name, plot.y.name) == ("memory_mb", "val_loss")
    assert set(plot.front.trial_ids) == {t for t, r in pareto_ranks(trials, objectives).items() if r == 0}
    assert plot.line_x == [100.0]  # on memory and loss alone, the depth-1 trial of lowest loss beats all
    assert plot.line_y == [goals(0.9, 1)[0]]


# -- parallel coordinates -----------------------------------------------------------------------


def test_parallel_coordinates_get_an_axis_per_objective_coloured_by_pareto_rank(two) -> None:
    _, _, trials = two

    coords = parallel_coordinates(SPACE, trials, "val_loss", OBJECTIVES)

    assert [axis.label for axis in coords.axes] == ["width", "depth", "val_loss (min)", "latency_ms (min)"]
    ranks = pareto_ranks(trials, OBJECTIVES)
    assert coords.colors == [float(ranks[t]) for t in coords.trial_ids] and coords.trial_ids == list(range(9))
    assert coords.color_title == "Pareto rank" and coords.reverse_scale
    assert coords.color_ticks == [float(k) for k in range(int(max(coords.colors)) + 1)]


def test_a_sample_of_parallel_coordinates_keeps_the_searchs_ranks(two) -> None:
    _, _, trials = two
    ranking = rank_trials(trials, OBJECTIVES)
    sample = parcoords_sample(trials, ranking, best=3, sample=2, selected=7)
    ranks = pareto_ranks(trials, OBJECTIVES)

    coords = parallel_coordinates(SPACE, sample.trials, "val_loss", ranking)

    assert [t.trial_id for t in sample.trials[:3]] == [t.trial_id for t in ranked(trials, OBJECTIVES)[:3]]
    assert 7 in coords.trial_ids and (sample.best, sample.sampled, sample.scored) == (3, 2, 9)
    assert coords.colors == [float(ranks[t]) for t in coords.trial_ids]


# -- the plots behind the selector (widgets without a front end) --------------------------------


def _tabs(model: DashboardModel, selected: list[int | None]):
    from hpnb.jupyter.dashboard.tabs import InsightTabs

    tabs = InsightTabs(model, "random", lambda: selected[0], model.view().header.summary.objectives,
                       select=lambda trial_id: selected.__setitem__(0, trial_id))
    tabs.render(model.view())
    return tabs


def _click(fig, trial_id: int) -> None:
    """What plot.js sends when a point is clicked (an ipywidgets custom message)."""
    content = {"event": "click", "trial": trial_id}
    fig._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def test_the_pareto_front_is_shown_first_and_a_click_on_a_point_selects_its_trial(two) -> None:
    from hpnb.jupyter.dashboard.tabs import HISTORY, PARETO

    model, _, _ = two
    selected: list[int | None] = [None]
    tabs = _tabs(model, selected)
    fig = tabs.figures[PARETO]

    assert list(tabs.selector.options)[:2] == [PARETO, HISTORY] and tabs.shown == PARETO
    _, line, front, mark = fig.data
    assert set(front["customdata"]) == FRONT and len(line["x"]) == 5 and mark["x"] == []
    assert fig.plot_layout["xaxis"]["title"]["text"] == "val_loss (min)"
    assert tabs.pair.box.layout.display == "none"  # two objectives: nothing to choose

    _click(fig, 3)
    tabs.redraw()

    assert selected == [3] and fig.data[3]["x"] == [goals(*MODELS[3])[0]]
    _click(fig, 3)  # the selected point again: no selection
    assert selected == [None]


def test_the_pair_selector_redraws_and_swaps_a_repeated_objective(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.tabs import PARETO

    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path, memory=True)
    with Store(path, readonly=True) as store:
        model = DashboardModel(path, store.experiment("two").id, SPACE)
    model.update()
    tabs = _tabs(model, [None])
    fig = tabs.figures[PARETO]
    assert tabs.pair.box.layout.display == "" and list(tabs.pair.x.options) == ["val_loss", "latency_ms",
                                                                                 "memory_mb"]

    tabs.pair.y.value = "memory_mb"
    assert fig.plot_layout["yaxis"]["title"]["text"] == "memory_mb (min)"
    tabs.pair.x.value = "memory_mb"  # the other axis's objective: the two swap

    assert (tabs.pair.x.value, tabs.pair.y.value) == ("memory_mb", "val_loss")
    assert fig.plot_layout["xaxis"]["title"]["text"] == "memory_mb (min)"
    assert fig.plot_layout["yaxis"]["title"]["text"] == "val_loss (min)"
    model.close()


def test_the_history_follows_the_first_objective_and_says_so(two) -> None:
    from hpnb.jupyter.dashboard.tabs import HISTORY

    model, _, _ = two
    tabs = _tabs(model, [None])

    tabs.selector.value = HISTORY

    history = tabs.figures[HISTORY]
    assert history.plot_layout["yaxis"]["title"]["text"] == "val_loss (first objective)"
    assert "follow the first objective, val_loss (early stopping judges it)" in tabs.notes[HISTORY].value
    assert history.data[0]["y"] == [goals(*m)[0] for m in MODELS]


def _curve_trials(fig, name: str) -> set[int]:
    """The trials whose curves the curves plot's trace ``name`` draws (its points read "trial N")."""
    trace = next(t for t in fig.data if t["name"] == name)
    return {int(text.split()[1]) for text in trace["text"] if text}


def test_the_curves_highlight_the_trials_of_the_front(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.tabs import CURVES

    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path)
    with Store(path) as store:
        experiment = store.experiment("two")
        losses = [(trial_id, step, goals(*m)[0] + (2 - step) / 10) for trial_id, m in enumerate(MODELS)
                  for step in range(3)]  # fmt: skip
        store.add_results(experiment.id, [ResultRow(trial_id, step + 1, step, 999.0 + trial_id, loss,
                                                    {"val_loss": loss}) for trial_id, step, loss in losses])
        for trial_id in range(len(MODELS)):
            store.update_trial(experiment.id, trial_id, last_step=2)
    model = DashboardModel(path, experiment.id, SPACE)
    model.update()
    selected: list[int | None] = [None]
    tabs = _tabs(model, selected)

    tabs.selector.value = CURVES

    fig = tabs.figures[CURVES]
    assert [t["name"] for t in fig.data] == ["stopped / failed", "completed", "running", "Pareto front",
                                             "selected"]
    assert _curve_trials(fig, "Pareto front") == FRONT
    assert _curve_trials(fig, "completed") == set(range(len(MODELS))) - FRONT
    selected[0] = 4  # a trial of the front, selected: red, and no longer among the front's lines
    tabs.redraw()
    assert _curve_trials(fig, "selected") == {4} and _curve_trials(fig, "Pareto front") == FRONT - {4}
    model.close()


def test_importance_has_one_bar_set_per_objective_drawn_off_the_main_thread(two) -> None:
    from hpnb.jupyter.dashboard.tabs import IMPORTANCE

    model, _, _ = two
    tabs = _tabs(model, [None])
    threads: list[str] = []
    original = tabs._analysis._rate

    def rate(*args):
        threads.append(threading.current_thread().name)
        return original(*args)

    tabs._analysis._rate = rate

    tabs.selector.value = IMPORTANCE
    tabs._analysis.join(240.0)

    assert threads and threading.main_thread().name not in threads
    bars = tabs.figures[IMPORTANCE].data
    assert [b["name"] for b in bars] == ["val_loss", "latency_ms"]
    for b in bars:
        assert sorted(b["y"]) == ["depth", "width"] and sum(b["x"]) == pytest.approx(1.0)
    layout = tabs.figures[IMPORTANCE].plot_layout
    assert layout["barmode"] == "group" and layout["title"]["text"].startswith(
        "fANOVA importance for val_loss and latency_ms (9 completed trials)")


def test_parallel_coordinates_in_the_dashboard_show_the_objectives(two) -> None:
    from hpnb.jupyter.dashboard.tabs import PARCOORDS

    model, _, _ = two
    tabs = _tabs(model, [None])

    tabs.selector.value = PARCOORDS

    trace = tabs.figures[PARCOORDS].data[0]
    assert [d["label"] for d in trace["dimensions"]][-2:] == ["val_loss (min)", "latency_ms (min)"]
    assert trace["line"]["colorbar"]["title"]["text"] == "Pareto rank"


# -- "Copy trial N as a cell" -------------------------------------------------------------------


def test_the_copy_button_copies_the_selected_trial_or_the_first_of_the_front(tmp_path: Path) -> None:
    from hpnb.jupyter.dashboard.dashboard import Dashboard

    path = tmp_path / "hpnb.sqlite"
    write_two_objective_search(path)
    dashboard = Dashboard(hpnb.load("two", store=path))
    button = dashboard.widgets.copy_best

    assert button.label == "Copy trial 2 as a cell"  # the front's first, on the first objective
    values = dict(zip(["val_loss", "latency_ms"], goals(0.9, 1), strict=True))
    assert button.code == trial_cell_code("objective", {"width": 0.9, "depth": 1}, trial_id=2, values=values,
                                          search="two", on_front=True)
    first = button.code.splitlines()[0]
    assert first == "# trial 2 of 'two': val_loss = 0.1, latency_ms = 12 (on the Pareto front)"

    dashboard.widgets.table.selected = 5

    assert button.label == "Copy trial 5 as a cell"
    assert "# trial 5 of 'two': val_loss = 0.6, latency_ms = 12\n" in button.code
    assert button.code.endswith("objective(**trial_params)") and "'width': 0.6," in button.code
    dashboard.close()


def test_a_single_objective_keeps_copy_best() -> None:
    from hpnb.jupyter.dashboard.copy_cell import COPY_BEST, CopyBestButton

    assert CopyBestButton().label == COPY_BEST == "Copy best as a cell"


# -- a large search ------------------------------------------------------------------------------


def test_a_large_search_with_two_objectives_sends_bounded_views(tmp_path: Path) -> None:
    path = tmp_path / "hpnb.sqlite"
    models = [((i * 7919) % 4000 / 4000, 1 + i % 3) for i in range(4000)]
    write_two_objective_search(path, models=models)
    with Store(path, readonly=True) as store:
        trials = store.trials(store.experiment("two").id)

    plot = pareto_plot.pareto_plot(trials, OBJECTIVES)
    sample = parcoords_sample(trials, OBJECTIVES)
    page = table.table_page(trials, "min", "COMPLETED", ["width", "depth"], "val_loss", now=2000.0,
                            objectives=OBJECTIVES)

    assert plot.shown <= 2000 and plot.scored == 4000
    assert len(plot.front.trial_ids) == sum(1 for w, d in models if d == 1)
    assert len(sample.trials) <= 2001 and len(page.rows) == table.PAGE_ROWS and page.total == 4002


def test_leaderboard_rows_rank_by_the_summary(two) -> None:
    _, _, trials = two

    rows = data.leaderboard_rows(trials, OBJECTIVES, now=2000.0)

    assert [r.trial_id for r in rows] == [t.trial_id for t in ranked(trials, OBJECTIVES)]
    assert rows[0].values == dict(zip(["val_loss", "latency_ms"], goals(*MODELS[2]), strict=True))
    assert rows[0].pareto_rank == 0
    assert rows[-1].values == {} and rows[-1].rank == 0 and rows[-1].pareto_rank is None


def _record(trial_id: int, loss: float) -> TrialRecord:
    return TrialRecord(1, trial_id, {}, "COMPLETED", 0.0, 1.0, None, None, 0, None, None, loss, loss,
                       {"val_loss": loss}, None, None)


def test_one_objective_keeps_its_table_columns() -> None:
    page = table.table_page([_record(0, 0.5)], "min", "COMPLETED", ["lr"], "loss", now=0.0,
                            objectives=(Objective("loss"),))

    labels = [label for _, label in page.columns]
    assert labels == ["rank", "trial", "loss", "state", "duration", "started", "lr"]
