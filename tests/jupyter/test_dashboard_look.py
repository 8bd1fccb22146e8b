"""The cell's dashboard and the Lab view share one definition of their look (look.js): the cell's
best-so-far line, selected trial and log axes follow it, as the Lab's bundle does."""

from __future__ import annotations

from pathlib import Path

from hpnb.jupyter.dashboard import look
from hpnb.jupyter.dashboard.insight_figures import make_history_figure, update_history
from hpnb.jupyter.dashboard.plot_samples import HistoryPlot

LAB_LOOK = Path(__file__).resolve().parents[2] / "labextension" / "src" / "look.ts"


def test_the_history_draws_best_so_far_and_the_selected_trial_in_the_shared_colours():
    fig = make_history_figure()
    plot = HistoryPlot([0, 1], [0.5, 0.7], ["COMPLETED"] * 2, ["", ""], best_x=[0, 1], best_y=[0.5, 0.7],
                       shown=2, total=2)
    update_history(fig, plot, "accuracy", selected=1)
    best, mark = fig.data[1], fig.data[2]
    assert best["name"] == "best so far" and best["line"]["color"] == look.COLORS["best"] == "#2ca02c"
    assert mark["marker"]["color"] == look.COLORS["selected"]


def test_the_cell_reads_the_look_the_lab_bundles():
    lab = LAB_LOOK.read_text()
    assert all(f'"{role}": "{colour}"' in lab for role, colour in look.COLORS.items())
    assert look.SIGNIFICANT == 4 and look.LOG_TICKS.endswith("e") and look.LOG_SUFFIX == " (log)"
