"""The routes of searches with several objectives (leaderboard, trials, parallel coordinates, the
Pareto view, importance, the list and the comparison) against a real jupyter_server and store."""

from __future__ import annotations

import json

import pytest

from hpnb.core.non_domination import dominates
from hpnb.core.summary import ranked, record_objectives
from tests.jupyter.server.pareto_store import ParetoSearches, write_pareto_searches
from tests.jupyter.server.test_insight_routes import stored_trials
from tests.jupyter.server.test_routes import error_of, get_json

pytestmark = pytest.mark.slow

TWO = ["val_loss", "latency_ms"]


@pytest.fixture
def searches(sample_store) -> ParetoSearches:
    return write_pareto_searches(sample_store.path)


def scored_points(trials, names=TWO) -> dict[int, tuple[float, ...]]:
    return {t.trial_id: tuple(t.metrics[n] for n in names) for t in trials
            if t.state == "COMPLETED" and all(n in t.metrics for n in names)}


async def test_the_leaderboard_ranks_by_pareto_rank_and_shows_each_objective(jp_fetch, searches):
    record, trials = stored_trials(searches, searches.two)
    expected = [t.trial_id for t in ranked(trials, record_objectives(record))]
    body = await get_json(jp_fetch, searches.two, "leaderboard", limit=1000)
    rows = body["rows"]
    assert [r["trial_id"] for r in rows] == expected
    assert body["objectives"] == [{"name": "val_loss", "mode": "min"}, {"name": "latency_ms", "mode": "min"}]
    points = scored_points(trials)
    for row in rows:
        trial_id = row["trial_id"]
        if trial_id in points:
            assert tuple(row["values"][n] for n in TWO) == points[trial_id]
            beaten = any(dominates(other, points[trial_id]) for other in points.values())
            assert (row["pareto_rank"] == 0) == (not beaten) == (row["params"]["depth"] == 1)
        else:
            assert row["pareto_rank"] is None and row["rank"] is None
    failed = next(r for r in rows if r["trial_id"] == searches.failed)
    assert failed["values"] == {"val_loss": None, "latency_ms": None}
    no_latency = next(r for r in rows if r["trial_id"] == searches.no_latency)
    assert no_latency["values"]["latency_ms"] is None and no_latency["values"]["val_loss"] is not None
    ranks = [r["pareto_rank"] for r in rows if r["pareto_rank"] is not None]
    assert ranks == sorted(ranks)
    assert [r["rank"] for r in rows[: len(ranks)]] == list(range(1, len(ranks) + 1))


@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_the_leaderboard_sorts_by_an_objective_best_first(jp_fetch, searches, order):
    body = await get_json(jp_fetch, searches.two, "leaderboard", sort="objective:latency_ms", order=order,
                          limit=1000)
    latencies = [r["values"]["latency_ms"] for r in body["rows"]]
    present = [v for v in latencies if v is not None]
    assert present == sorted(present, reverse=order == "desc")
    assert latencies[len(present):] == [None, None]  # the failed one and the one without, last
    by_pareto = await get_json(jp_fetch, searches.two, "leaderboard", sort="pareto", order=order, limit=1000)
    ranks = [r["pareto_rank"] for r in by_pareto["rows"] if r["pareto_rank"] is not None]
    assert ranks == sorted(ranks, reverse=order == "desc")


async def test_the_leaderboard_refuses_an_objective_the_search_does_not_have(jp_fetch, searches):
    code, body = await error_of(jp_fetch, searches.two, "leaderboard", params={"sort": "objective:memory_mb"})
    assert code == 400
    assert "'objective:memory_mb'" in body["message"] and "objective:latency_ms" in body["message"]


async def test_trials_carry_their_objective_values_and_pareto_rank(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.two)
    body = await get_json(jp_fetch, searches.two, "trials")
    points = scored_points(trials)
    front = {i for i, p in points.items() if not any(dominates(o, p) for o in points.values())}
    assert {t["trial_id"] for t in body["trials"] if t["pareto_rank"] == 0} == front
    assert all(set(t["values"]) == set(TWO) for t in body["trials"])


async def test_parallel_coordinates_have_every_objective_of_every_trial_drawn(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.three)
    body = await get_json(jp_fetch, searches.three, "parcoords")
    assert [o["name"] for o in body["objectives"]] == ["val_loss", "latency_ms", "memory_mb"]
    points = scored_points(trials, ["val_loss", "latency_ms", "memory_mb"])
    assert sorted(t["trial_id"] for t in body["trials"]) == sorted(points)
    for drawn in body["trials"]:
        assert tuple(drawn["values"].values()) == points[drawn["trial_id"]]
    assert [t["pareto_rank"] for t in body["trials"]] == sorted(t["pareto_rank"] for t in body["trials"])
    for axis, name in enumerate(["val_loss", "latency_ms", "memory_mb"]):  # the axes span every trial
        values = [p[axis] for p in points.values()]
        assert body["ranges"][name] == [min(values), max(values)]


async def test_the_pareto_view_draws_two_objectives_and_their_front(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.two)
    body = await get_json(jp_fetch, searches.two, "pareto")
    assert (body["x"]["name"], body["y"]["name"]) == ("val_loss", "latency_ms")
    points = scored_points(trials)
    assert {p["trial_id"]: (p["x"], p["y"]) for p in body["points"]} == points
    front = [p for p in body["points"] if p["rank"] == 0]
    assert {p["trial_id"] for p in body["front"]} == {p["trial_id"] for p in front}
    assert body["front_size"] == len(front)
    line = [(p["x"], p["y"]) for p in body["front"]]
    assert line == sorted(line) and [y for _, y in line] == sorted((y for _, y in line), reverse=True)
    swapped = await get_json(jp_fetch, searches.two, "pareto", x="latency_ms", y="val_loss")
    assert {p["trial_id"]: (p["y"], p["x"]) for p in swapped["points"]} == points


async def test_any_pair_of_three_objectives_has_its_own_front_and_the_ranks_of_all_three(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.three)
    body = await get_json(jp_fetch, searches.three, "pareto", x="latency_ms", y="memory_mb")
    pair = scored_points(trials, ["latency_ms", "memory_mb"])
    pair_front = {i for i, p in pair.items() if not any(dominates(o, p) for o in pair.values())}
    assert {p["trial_id"] for p in body["front"]} == pair_front
    everything = scored_points(trials, ["val_loss", "latency_ms", "memory_mb"])
    overall = {i for i, p in everything.items() if not any(dominates(o, p) for o in everything.values())}
    assert {p["trial_id"] for p in body["points"] if p["rank"] == 0} == overall


@pytest.mark.parametrize(("params", "named"), [
    ({"x": "memory_mb"}, ["x: 'memory_mb' is not an objective", "val_loss, latency_ms"]),
    ({"y": "nope"}, ["y: 'nope'"]),
    ({"x": "val_loss", "y": "val_loss"}, ["both 'val_loss'"]),
])  # fmt: skip
async def test_the_pareto_view_refuses_an_unknown_or_repeated_objective_naming_it(
        jp_fetch, searches, params, named):
    code, body = await error_of(jp_fetch, searches.two, "pareto", params=params)
    assert code == 400
    assert all(text in body["message"] for text in named), body["message"]


async def test_the_pareto_view_of_a_search_with_one_objective_says_so(jp_fetch, searches, sample_store):
    code, body = await error_of(jp_fetch, sample_store.finished, "pareto")
    assert code == 400 and "has one objective (val_loss)" in body["message"]


async def test_the_pareto_view_refuses_a_request_without_a_valid_token(jp_fetch, searches):
    code, _ = await error_of(jp_fetch, searches.two, "pareto", headers={"Authorization": "token wrong"})
    assert code == 403


async def test_importance_has_one_bar_set_per_objective(jp_fetch, searches):
    body = await get_json(jp_fetch, searches.two, "importance", evaluator="ped-anova")
    sets = body["objectives"]
    assert [(s["name"], s["mode"]) for s in sets] == [("val_loss", "min"), ("latency_ms", "min")]
    for bars in sets:
        assert {b["name"] for b in bars["importance"]} == {"width", "depth"}
        assert sum(b["value"] for b in bars["importance"]) == pytest.approx(1.0)
    assert body["importance"] == sets[0]["importance"]


async def test_the_list_gives_the_front_size_and_the_search_its_front(jp_fetch, searches):
    _, trials = stored_trials(searches, searches.two)
    points = scored_points(trials)
    front = {i for i, p in points.items() if not any(dominates(o, p) for o in points.values())}
    listed = {e["name"]: e for e in (await get_json(jp_fetch))["experiments"]}
    assert listed[searches.two]["front_size"] == len(front) and "front" not in listed[searches.two]
    assert listed[searches.two]["best"] is None
    one = await get_json(jp_fetch, searches.two)
    assert {entry["trial_id"] for entry in one["front"]} == front


async def test_a_comparison_names_the_objectives_of_each_search(jp_fetch, searches, sample_store):
    names = [("name", searches.two), ("name", sample_store.finished)]
    response = await jp_fetch("hpnb", "api", "compare", params=names)
    shown = json.loads(response.body)["searches"]
    assert [[o["name"] for o in s["objectives"]] for s in shown] == [TWO, ["val_loss"]]
    assert shown[0]["metric"] == "val_loss"  # a search with several objectives compares by its first
