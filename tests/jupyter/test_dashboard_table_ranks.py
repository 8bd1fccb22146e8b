"""The trials table and counts line as a newcomer reads them: tied scores share a rank and say so,
a running trial's score is marked partial and ranked after the finished ones, fast trials' durations
in milliseconds, and every state some trial is in is counted (paused too)."""

from __future__ import annotations

from dataclasses import replace

from hpnb.core.store import ExperimentRecord
from hpnb.jupyter.dashboard.data import header
from hpnb.jupyter.dashboard.table import table_page
from hpnb.jupyter.dashboard.widgets import counts_html
from tests.core.analysis.records import trial

NOW = 100.0


def _rows(trials, **kwargs):
    page = table_page(trials, "max", "RUNNING", [], "accuracy", now=NOW, **kwargs)
    return [dict(zip([label for _, label in page.columns], row)) for row in page.rows]


def test_tied_scores_share_a_rank_and_a_running_trials_partial_score_ranks_after_the_finished():
    trials = [trial(0, 0.9685, {"x": 0}), trial(1, 0.9685, {"x": 1}), trial(2, 0.95, {"x": 2}),
              trial(3, 0.99, {"x": 3}, state="RUNNING"), trial(4, 0.9685, {"x": 4}),
              trial(5, None, {"x": 5}, state="PENDING")]
    rows = _rows(trials)
    assert [(r["trial"], r["rank"]) for r in rows] == [
        ("0", "1 (tied)"), ("1", "1 (tied)"), ("4", "1 (tied)"), ("2", "4"), ("3", "5"), ("5", "")]
    assert rows[4]["accuracy"] == "0.99 (partial)" and rows[0]["accuracy"] == "0.9685"


def test_a_trial_under_a_second_shows_milliseconds():
    rows = _rows([trial(0, 0.5, start=10.0, end=10.042)])
    assert rows[0]["duration"] == "42 ms"


def test_the_counts_name_paused_and_pending_trials_beside_running_failed_and_stopped():
    trials = [trial(0, 0.9), trial(1, None, state="PAUSED"), trial(2, None, state="RUNNING"),
              trial(3, None, state="STOPPED"), trial(4, None, state="PENDING")]
    search = ExperimentRecord(1, "s", {}, None, "RUNNING", 17, 2, "accuracy", "max", "random",
                              0.0, 0.0, None, False, None, None, "driver", heartbeat=NOW)  # a live driver
    text = counts_html(header(search, trials, NOW))
    assert text.startswith("2/17 done &middot; 1 running &middot; 1 pending &middot; 1 paused &middot; "
                           "0 failed &middot; 1 stopped")
    trials[1] = replace(trials[1], state="COMPLETED")
    assert "paused" not in counts_html(header(search, trials, NOW))
