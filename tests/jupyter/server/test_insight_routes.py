"""The experiment view's routes (leaderboard pages, history, curves, parallel coordinates,
importance, comparison) against a real jupyter_server and a real store file."""

from __future__ import annotations

import json
import time

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.core.store import Store
from hpnb.core.summary import ranked, trial_score
from tests.jupyter.server.insight_store import OPTIMIZERS, InsightSearches, write_insight_searches
from tests.jupyter.server.test_routes import error_of, get_json

pytestmark = pytest.mark.slow


@pytest.fixture
def searches(sample_store) -> InsightSearches:
    return write_insight_searches(sample_store.path)


def stored_trials(searches: InsightSearches, name: str):
    with Store(searches.path, readonly=True) as store:
        record = store.experiment(name)
        return record, store.trials(record.id)


async def test_leaderboard_pages_follow_the_ranking(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.tuned)
    best_first = [t.trial_id for t in ranked(trials, "min")]
    first = await get_json(jp_fetch, searches.tuned, "leaderboard", limit=10)
    second = await get_json(jp_fetch, searches.tuned, "leaderboard", offset=10, limit=10)
    assert [r["trial_id"] for r in first["rows"] + second["rows"]] == best_first[:20]
    assert [r["rank"] for r in first["rows"]] == list(range(1, 11))
    assert first["total"] == searches.trials
    kinds = {p["name"]: p for p in first["parameters"]}
    assert kinds["layers"]["kind"] == "int" and (kinds["layers"]["min"], kinds["layers"]["max"]) == (1, 4)
    assert kinds["lr"]["kind"] == "float" and kinds["lr"]["log"] is True
    assert kinds["optimizer"] == {"name": "optimizer", "kind": "categorical", "log": False,
                                  "choices": ["adam", "sgd", "rmsprop"]}  # fmt: skip


@pytest.mark.parametrize("column", ["param:lr", "param:optimizer", "trial", "duration", "score"])
@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_leaderboard_sorts_by_any_column(jp_fetch, searches, column, order):
    _, trials = stored_trials(searches, searches.tuned)
    body = await get_json(jp_fetch, searches.tuned, "leaderboard", sort=column, order=order, limit=1000)
    rows = body["rows"]
    assert sorted(r["trial_id"] for r in rows) == [t.trial_id for t in trials]
    values = {
        "param:lr": [r["params"]["lr"] for r in rows],
        "param:optimizer": [r["params"]["optimizer"] for r in rows],
        "trial": [r["trial_id"] for r in rows],
        "duration": [r["duration"] for r in rows],
        "score": [r["score"] for r in rows],
    }[column]
    assert values == sorted(values, reverse=order == "desc")


async def test_leaderboard_refuses_an_unknown_column_naming_the_allowed_ones(jp_fetch, searches):
    code, body = await error_of(jp_fetch, searches.tuned, "leaderboard", params={"sort": "param:nope"})
    assert code == 400
    assert "sort" in body["message"] and "'param:nope'" in body["message"] and "param:lr" in body["message"]


async def test_history_has_every_finished_trial_with_the_best_so_far(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.tuned)
    body = await get_json(jp_fetch, searches.tuned, "history")
    points = body["points"]
    assert [p["trial_id"] for p in points] == sorted(t.trial_id for t in trials)
    scores = [trial_score(t) for t in sorted(trials, key=lambda t: t.trial_id)]
    assert [p["score"] for p in points] == scores
    assert [p["best"] for p in points] == [min(scores[: i + 1]) for i in range(len(scores))]
    by_end = await get_json(jp_fetch, searches.tuned, "history", order="end")
    ends = [p["end"] for p in by_end["points"]]
    assert ends == sorted(ends)


async def test_curves_are_those_of_the_best_trials_and_the_selected_one(jp_fetch, searches):
    record, trials = stored_trials(searches, searches.tuned)
    worst = ranked(trials, "min")[-1].trial_id
    body = await get_json(jp_fetch, searches.tuned, "curves", trial=worst, points=2)
    ids = [c["trial_id"] for c in body["curves"]]
    assert worst in ids and ranked(trials, "min")[0].trial_id in ids
    with Store(searches.path, readonly=True) as store:
        rows = store.results(record.id, trial_id=worst)
    curve = next(c for c in body["curves"] if c["trial_id"] == worst)
    assert len(curve["x"]) < len(rows)
    assert (curve["x"][-1], curve["y"][-1]) == (rows[-1].step, rows[-1].value)


async def test_parallel_coordinates_send_the_finished_trace_of_the_scored_trials(jp_fetch, searches):
    body = await get_json(jp_fetch, searches.tuned, "parcoords")
    trace = body["trace"]
    assert body["scored"] == searches.trials and len(trace["ids"]) == searches.trials
    lr, layers, optimizer, metric = trace["dimensions"]
    assert [lr["label"], layers["label"], optimizer["label"]] == ["lr (log)", "layers", "optimizer"]
    assert lr["ticktext"] == ["1e-4", "1e-3", "1e-2", "1e-1"] and lr["range"] == [-4.0, -1.0]
    assert layers["tickvals"] == [1.0, 2.0, 3.0, 4.0]  # integers only
    assert optimizer["ticktext"] == list(OPTIMIZERS) and metric["label"] == body["metric"]
    assert "selected" not in trace
    worst = trace["ids"][trace["line"]["color"].index(min(trace["line"]["color"]))]
    marked = (await get_json(jp_fetch, searches.tuned, "parcoords", trial=worst))["trace"]
    index = marked["ids"].index(worst)
    assert marked["selected"] == {"trial": worst, "index": index}
    assert marked["line"]["color"][index] == 0.0  # the worst darkest, whatever the mode

    # its line alone, on the same axes (what the Lab adds over the lines it drew without it)
    alone = (await get_json(jp_fetch, searches.tuned, "parcoords", trial=worst, lines="selected"))["trace"]
    assert alone["ids"] == [worst] and alone["selected"] == {"trial": worst, "index": 0}
    for full, own in zip(trace["dimensions"], alone["dimensions"], strict=True):
        assert (own["label"], own["range"], own.get("tickvals")) == (full["label"], full["range"],
                                                                     full.get("tickvals"))
        assert own["values"] == [full["values"][trace["ids"].index(worst)]]


async def test_parallel_coordinates_refuse_a_bad_choice_of_lines(jp_fetch, searches):
    code, body = await error_of(jp_fetch, searches.tuned, "parcoords", params={"lines": "selected"})
    assert code == 400 and "needs a trial" in body["message"]
    code, body = await error_of(jp_fetch, searches.tuned, "parcoords", params={"lines": "some", "trial": "1"})
    assert code == 400 and "'some'" in body["message"] and "selected" in body["message"]


async def test_importance_ranks_the_parameter_the_loss_depends_on_first(jp_fetch, searches):
    for evaluator in ("fanova", "ped-anova"):
        body = await get_json(jp_fetch, searches.tuned, "importance", evaluator=evaluator)
        names = [item["name"] for item in body["importance"]]
        assert names[0] == "lr" and sorted(names) == ["layers", "lr", "optimizer"]
        assert sum(item["value"] for item in body["importance"]) == pytest.approx(1.0)


async def test_importance_of_a_search_with_one_finished_trial_says_so(jp_fetch, searches):
    body = await get_json(jp_fetch, searches.single, "importance")
    assert body["importance"] is None
    assert "at least 4 completed trials" in body["message"] and "has 1" in body["message"]


async def test_importance_refuses_an_unknown_evaluator(jp_fetch, searches):
    code, body = await error_of(jp_fetch, searches.tuned, "importance", params={"evaluator": "shap"})
    assert code == 400 and "'shap'" in body["message"] and "fanova" in body["message"]


@pytest.mark.parametrize("route", ["leaderboard", "history", "curves", "parcoords", "importance", "slices"])
async def test_an_unknown_search_is_a_404_naming_it(jp_fetch, searches, route):
    code, body = await error_of(jp_fetch, "no-such-search", route)
    assert code == 404 and "no-such-search" in body["message"]


@pytest.mark.parametrize("route", ["leaderboard", "history", "curves", "parcoords", "importance", "slices"])
async def test_the_view_routes_refuse_a_request_without_a_valid_token(jp_fetch, searches, route):
    code, _ = await error_of(jp_fetch, searches.tuned, route, headers={"Authorization": "token wrong"})
    assert code == 403


async def test_slices_draw_each_parameter_on_its_own_axis_and_a_contour_of_the_two_most_important(
    jp_fetch, searches
):
    _, trials = stored_trials(searches, searches.tuned)
    body = await get_json(jp_fetch, searches.tuned, "slices")
    axes = {piece["axis"]["name"]: piece["axis"] for piece in body["slices"]}
    assert axes["lr"]["log"] is True and axes["layers"]["kind"] == "int"
    assert axes["optimizer"]["choices"] == ["adam", "sgd", "rmsprop"]
    lr = next(piece for piece in body["slices"] if piece["axis"]["name"] == "lr")
    by_id = {t.trial_id: t for t in trials}
    assert [by_id[i].params["lr"] for i in lr["trial_ids"]] == lr["values"]
    assert [trial_score(by_id[i]) for i in lr["trial_ids"]] == lr["scores"]
    importance = await get_json(jp_fetch, searches.tuned, "importance")
    two = [item["name"] for item in importance["importance"][:2]]
    contour = body["contour"]
    assert [contour["x"]["name"], contour["y"]["name"]] == two
    assert len(contour["z"]) == len(contour["y_grid"]) and len(contour["z"][0]) == len(contour["x_grid"])
    chosen = await get_json(jp_fetch, searches.tuned, "slices", x="optimizer", y="layers")
    assert (chosen["contour"]["x"]["name"], chosen["contour"]["y"]["name"]) == ("optimizer", "layers")


async def test_slices_of_a_search_with_one_trial_explain_the_missing_contour(jp_fetch, searches):
    body = await get_json(jp_fetch, searches.single, "slices")
    assert body["contour"] is None and "at least 3" in body["contour_message"]


async def test_compare_gives_each_search_its_best_so_far_by_trial_and_by_time(jp_fetch, searches):
    names = [("name", searches.tuned), ("name", searches.other)]
    response = await jp_fetch("hpnb", "api", "compare", params=names)
    body = json.loads(response.body)
    assert [s["name"] for s in body["searches"]] == [searches.tuned, searches.other]
    for search in body["searches"]:
        _, trials = stored_trials(searches, search["name"])
        scores = [trial_score(t) for t in sorted(trials, key=lambda t: t.trial_id)]
        assert search["best"] == [min(scores[: i + 1]) for i in range(len(scores))]
        assert search["seconds"] == sorted(search["seconds"]) and search["seconds"][0] >= 0


async def test_compare_of_an_unknown_search_is_a_404_naming_it(jp_fetch, searches):
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch("hpnb", "api", "compare", params=[("name", searches.tuned), ("name", "yesterday")])
    assert raised.value.code == 404
    assert "yesterday" in json.loads(raised.value.response.body)["message"]


async def test_compare_of_too_many_searches_is_refused(jp_fetch, searches):
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch("hpnb", "api", "compare", params=[("name", f"s{i}") for i in range(13)])
    assert raised.value.code == 400
    assert "at most 12" in json.loads(raised.value.response.body)["message"]


async def test_a_finished_search_read_once_is_read_again_once_its_record_changes(jp_fetch, searches):
    first = await get_json(jp_fetch, searches.tuned, "leaderboard")
    with Store(searches.path) as store:
        record = store.experiment(searches.tuned)
        store.add_trial(record.id, searches.trials, {"lr": 0.01, "layers": 2, "optimizer": "sgd"})
        store.update_trial(record.id, searches.trials, state="COMPLETED", value=0.01, best=0.01)
        store.update_experiment(record.id, message="extended by one trial")  # as a resume does
    again = await get_json(jp_fetch, searches.tuned, "leaderboard")
    assert again["total"] == first["total"] + 1
    assert again["rows"][0]["trial_id"] == searches.trials


async def test_leaderboard_shares_ranks_of_equal_scores_and_ranks_partial_scores_last(jp_fetch, sample_store):
    spec = {"metric": "loss", "mode": "min", "parameters": {"width": [1, 2], "alpha": [0.1, 0.2]}}
    with Store(sample_store.path) as store:
        record = store.create_experiment("ties", spec, metric="loss", mode="min", strategy="grid", budget=5,
                                         parallel=2)
        store.update_experiment(record.id, state="RUNNING", heartbeat=time.time() + 3600)
        for trial_id, (state, best) in enumerate([("COMPLETED", 0.5), ("COMPLETED", 0.5), ("COMPLETED", 0.7),
                                                   ("RUNNING", 0.1), ("PAUSED", 0.2)]):
            store.add_trial(record.id, trial_id, {"width": 1, "alpha": 0.1 * (trial_id + 1)}, state="RUNNING")
            store.update_trial(record.id, trial_id, state=state, start=time.time() - 1, best=best, value=best)
    body = await get_json(jp_fetch, "ties", "leaderboard")
    shown = [(r["trial_id"], r["rank"], r["tied"], r["partial"]) for r in body["rows"]]
    assert shown == [(0, 1, True, False), (1, 1, True, False), (2, 3, False, False),
                     (3, 4, False, True), (4, 5, False, True)]  # fmt: skip
    assert body["columns"] == ["width", "alpha"]  # the spec's order
