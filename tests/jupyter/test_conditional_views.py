"""The dashboard's views of a conditional space: a parameter a trial did not have is blank."""

from __future__ import annotations

import math
from pathlib import Path

from hpnb.core.frames import results_frame
from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.jupyter.dashboard import static
from hpnb.jupyter.dashboard.model import DashboardModel
from hpnb.views.axes import INACTIVE_LABEL
from hpnb.views.parcoords import parallel_coordinates

SPACE = parse_spec("""\
metric: loss
parameters:
  optimizer: [sgd, adam]
  lr: {distribution: logUniform, min: 1.0e-4, max: 1.0e-1}
  momentum: {min: 0.5, max: 0.99, when: {optimizer: sgd}}
  schedule: {values: [step, cosine], when: {optimizer: sgd}}
  decay: {distribution: logUniform, min: 1.0e-3, max: 1.0e-1, when: {optimizer: adam}}
""").space
TRIALS = [({"optimizer": "sgd", "lr": 0.01, "momentum": 0.9, "schedule": "cosine"}, 0.2),
          ({"optimizer": "adam", "lr": 0.001, "decay": 0.01}, 0.4)]


def _store(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "hpnb.sqlite")
    exp = store.create_experiment("cond", {}, metric="loss", mode="min", strategy="random", budget=2,
                                  parallel=2)
    for trial_id, (params, value) in enumerate(TRIALS):
        store.add_trial(exp.id, trial_id, params)
        store.update_trial(exp.id, trial_id, state="COMPLETED", value=value, best=value, start=1.0, end=2.0)
    store.update_experiment(exp.id, state="COMPLETED")
    return store, exp.id


def test_parallel_coordinates_put_inactive_values_on_a_labelled_slot_below_each_axis(tmp_path: Path) -> None:
    store, exp_id = _store(tmp_path)
    with store:
        coords = parallel_coordinates(SPACE, store.trials(exp_id), "loss", "min")
    axes = {axis.label: axis for axis in coords.axes}
    for label, active in (("momentum", 0), ("schedule", 0), ("decay (log)", 1)):
        axis = axes[label]
        inactive = 1 - active
        assert axis.range is not None and axis.tickvals is not None and axis.ticktext is not None
        assert axis.values[inactive] == axis.range[0] == axis.tickvals[0] < axis.tickvals[1]
        assert axis.ticktext[0] == INACTIVE_LABEL and math.isfinite(axis.values[active])
    assert axes["momentum"].values[0] == 0.9 and axes["schedule"].values[0] == 1.0
    assert axes["decay (log)"].values[1] == -2.0
    assert axes["schedule"].ticktext[1:] == ["step", "cosine"]
    assert axes["lr (log)"].ticktext is not None and INACTIVE_LABEL not in axes["lr (log)"].ticktext


def test_the_leaderboard_and_the_results_frame_show_inactive_values_blank(tmp_path: Path) -> None:
    store, exp_id = _store(tmp_path)
    with store:
        model = DashboardModel(store.path, exp_id, SPACE)
        model.update()
        view = model.view()
        page = static.summary_html(view.header, view.leaderboard, model.param_names, view.failures)
        model.close()
        frame = results_frame(store.experiment("cond"), store.trials(exp_id))
    assert "None" not in page and "<td>cosine</td>" in page
    assert math.isnan(frame.loc[1, "momentum"]) and math.isnan(frame.loc[0, "decay"])
    assert frame.loc[1, "schedule"] is None or frame.loc[1, "schedule"] != frame.loc[1, "schedule"]
