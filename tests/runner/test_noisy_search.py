"""A search with ``noise: true`` through the real driver and store (scripted executor): gp runs its
best configuration again, each repeat is an event naming the earlier trial, and the summary, ``hpnb
show``, the dashboard's header and its leaderboard show the best by the mean of its runs."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from hpnb.cli.show import summary_lines
from hpnb.core.repeats import config_key
from hpnb.core.summary import summarize
from hpnb.jupyter.dashboard.table import table_page
from hpnb.jupyter.dashboard.widgets import events_html, title_html
from hpnb.runner.worker.objective import TrialTask
from hpnb.testing import Done, ScriptedExecutor, Start
from tests.runner.test_driver_paths import build, events, run


def _noisy(task: TrialTask) -> list[Any]:
    noise = 0.05 * math.sin(7.3 * task.trial_id)
    return [Start(), Done(metrics={"loss": (float(task.params["x"]) - 0.3) ** 2 + noise})]


def test_a_noisy_search_repeats_its_best_and_ranks_it_by_the_mean(store) -> None:
    driver = build(store, ScriptedExecutor(_noisy), strategy={"name": "gp", "repeat_every": 5}, trials=20,
                   seed=0, noise=True)
    trials = run(driver, seconds=120.0)
    assert [t.state for t in trials] == ["COMPLETED"] * 20
    by_id = {t.trial_id: t for t in trials}
    repeats = events(driver, "repeat")
    assert [e["trial"] for e in repeats] == [9, 14, 18, 19]  # every 5th, and the budget's last tenth
    assert all(by_id[e["of"]].params == by_id[e["trial"]].params for e in repeats)

    summary = summarize(store.experiment("paths"), trials, time.time())
    assert summary.best_runs >= 2
    same = [t for t in trials if config_key(t.params) == config_key(summary.best_params)]
    assert summary.best_trial == same[0].trial_id
    assert summary.best_value == pytest.approx(sum(t.value for t in same) / len(same))
    line = next(x for x in summary_lines(store.experiment("paths"), summary) if "best" in x)
    assert f"(mean of {summary.best_runs} runs)" in line and "\u00b1" in line
    assert f"(mean of {summary.best_runs} runs)" in title_html(summary)
    assert "runs trial" in events_html(store.events(driver.experiment_id))

    page = table_page(trials, "min", summary.state.value, ["x"], "loss", now=time.time(), page_rows=20)
    cells = {tid: row[2] for tid, row in zip(page.trial_ids, page.rows, strict=True)}
    assert f"(mean of {summary.best_runs} runs)" in cells[summary.best_trial]
    keys = [config_key(t.params) for t in trials]
    single = next(t.trial_id for t, k in zip(trials, keys, strict=True) if keys.count(k) == 1)
    assert "mean of" not in cells[single]
