"""The cell's dashboard of a search with constraints: infeasible trials are in the table, marked
and ranked after the feasible ones; the header names the constraints and the best feasible trial."""

from __future__ import annotations

from hpnb.core.constraints import Constraint
from hpnb.core.store import ExperimentRecord
from hpnb.jupyter.dashboard.data import header, leaderboard_rows
from hpnb.jupyter.dashboard.event_words import event_text
from hpnb.jupyter.dashboard.static import summary_text
from hpnb.jupyter.dashboard.table import table_page
from hpnb.jupyter.dashboard.widgets import title_html
from tests.core.analysis.records import trial

SIZE = (Constraint("size", max=40.0),)
NOW = 100.0


def trials():
    """accuracy 0.5 + i / 20, size 10 i: the more accurate, the larger; trial 3 never reports its size."""
    sizes = [{} if i == 3 else {"size": 10.0 * i} for i in range(7)]
    return [trial(i, 0.5 + i / 20, {"x": i}, metrics={"accuracy": 0.5 + i / 20, **sizes[i]})
            for i in range(7)]


def record() -> ExperimentRecord:
    spec = {"metric": "accuracy", "mode": "max", "constraints": {"size": {"max": 40.0}}}
    return ExperimentRecord(1, "sized", spec, None, "COMPLETED", 7, None, "accuracy", "max", "tpe",
                            0.0, 5.0, None, False, None, None, None)


def test_the_table_marks_infeasible_trials_and_ranks_them_after_the_feasible():
    page = table_page(trials(), "max", "COMPLETED", [], "accuracy", now=NOW, constraints=SIZE)
    rows = [dict(zip([label for _, label in page.columns], row)) for row in page.rows]
    assert [r["trial"] for r in rows] == ["4", "2", "1", "0", "6", "5", "3"]
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4", "5", "6", "7"]
    assert rows[0]["accuracy"] == "0.7" and rows[4]["accuracy"] == "0.8 (infeasible)"


def test_the_header_and_the_leaderboard_name_the_constraints_and_the_best_feasible_trial():
    top = header(record(), trials(), NOW)
    assert top.summary.best_trial == 4 and top.summary.infeasible == 3
    title = title_html(top.summary)
    assert "constraints size &lt;= 40 (3 infeasible trials, never best)" in title and "(trial 4:" in title
    rows = leaderboard_rows(trials(), top.ranking, NOW, constraints=top.summary.constraints)
    assert [(r.trial_id, r.feasible) for r in rows[:5]] == [(4, True), (2, True), (1, True), (0, True),
                                                             (6, False)]
    text = summary_text(top, rows)
    assert "best accuracy = 0.7 (trial 4" in text and "size <= 40 (3 infeasible trials" in text


def test_a_search_without_a_feasible_trial_says_so():
    infeasible = [t for t in trials() if t.trial_id > 4]
    top = header(record(), infeasible, NOW)
    assert top.summary.best_trial is None
    assert "best: — (no feasible trial yet)" in title_html(top.summary)


def test_the_event_of_a_metric_never_reported_reads_as_a_sentence():
    event = {"kind": "constraint_never_reported", "data": {"trial": 3, "metric": "size", "reason":
             "never reported size: the trials that do not report it fail its constraint"}}
    assert event_text(event) == ("trial 3 never reported size: the trials that do not report it fail its "
                                 "constraint")
