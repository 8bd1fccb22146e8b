"""The /hpnb/api routes against a real jupyter_server and a real store file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.core import summary
from hpnb.core.store import Store
from tests.jupyter.server.sample_store import SampleStore, write_sample_store

pytestmark = pytest.mark.slow

API = ("hpnb", "api", "experiments")


#: a route's answer may take long on a loaded machine (importance imports Optuna and fits a forest),
#: beyond the HTTP client's 20 s default
REQUEST_TIMEOUT = 180.0


async def get_json(jp_fetch, *parts: str, **params: object) -> dict:
    response = await jp_fetch(*API, *parts, params={k: str(v) for k, v in params.items()},
                              request_timeout=REQUEST_TIMEOUT)
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


async def error_of(jp_fetch, *parts: str, method: str = "GET", **kwargs) -> tuple[int, dict]:
    if method == "POST":
        kwargs["body"] = b"{}"
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, *parts, method=method, request_timeout=REQUEST_TIMEOUT, **kwargs)
    response = raised.value.response
    assert response is not None
    return raised.value.code, json.loads(response.body)


def read_store(sample: SampleStore) -> Store:
    return Store(sample.path, readonly=True)


async def test_list_shows_every_experiment_newest_first_with_progress_and_best(jp_fetch, sample_store):
    body = await get_json(jp_fetch)
    by_name = {e["name"]: e for e in body["experiments"]}
    assert [e["name"] for e in body["experiments"]] == [sample_store.running, sample_store.finished]

    finished = by_name[sample_store.finished]
    assert finished["state"] == "COMPLETED"
    assert finished["strategy"] == "random"
    assert (finished["metric"], finished["mode"]) == ("val_loss", "min")
    assert finished["done"] == sample_store.finished_trials + sample_store.failed_trials
    assert finished["budget"] == 7
    assert finished["failed"] == sample_store.failed_trials
    assert finished["running"] == 0
    # what the summary decided, so the Lab does not decide it again: a finished search can be resumed
    assert (finished["active"], finished["resumable"]) == (False, True)

    running = by_name[sample_store.running]
    assert running["state"] == "RUNNING"
    assert running["running"] == sample_store.running_trials
    assert running["stop_requested"] is False
    assert (running["active"], running["resumable"]) == (True, False)

    with read_store(sample_store) as store:
        record = store.experiment(sample_store.finished)
        trials = store.trials(record.id)
    best = summary.best_trial(trials, record.mode)
    assert best is not None
    assert finished["best"] == {"trial_id": best.trial_id, "value": best.value, "params": best.params,
                                "runs": 1, "std": None}
    assert finished["created"] == record.created
    assert finished["updated"] == record.updated


async def test_one_experiment_includes_its_spec(jp_fetch, sample_store):
    body = await get_json(jp_fetch, sample_store.finished)
    assert body["name"] == sample_store.finished
    assert body["spec"]["strategy"] == "random"


async def test_trials_come_in_pages(jp_fetch, sample_store):
    total = sample_store.finished_trials + sample_store.failed_trials
    page = await get_json(jp_fetch, sample_store.finished, "trials", offset=2, limit=3)
    assert [t["trial_id"] for t in page["trials"]] == [2, 3, 4]
    assert (page["total"], page["offset"], page["limit"]) == (total, 2, 3)
    everything = await get_json(jp_fetch, sample_store.finished, "trials")
    assert len(everything["trials"]) == total
    failed = [t for t in everything["trials"] if t["state"] == "FAILED"]
    assert len(failed) == 1 and "diverged" in failed[0]["error"]
    past_the_end = await get_json(jp_fetch, sample_store.finished, "trials", offset=total)
    assert past_the_end["trials"] == []


async def test_results_follow_the_cursor_until_every_row_is_seen(jp_fetch, sample_store):
    seen: list[tuple[int, int]] = []
    cursor = 0
    while True:
        page = await get_json(jp_fetch, sample_store.finished, "results", after=cursor, limit=7)
        seen += [(r["trial_id"], r["seq"]) for r in page["results"]]
        if not page["results"]:
            break
        cursor = page["next"]
    with read_store(sample_store) as store:
        record = store.experiment(sample_store.finished)
        stored = [(r.trial_id, r.seq) for r in store.results(record.id)]
    assert sorted(seen) == sorted(stored)
    assert len(seen) == len(set(seen))


async def test_results_of_one_trial_after_a_seq(jp_fetch, sample_store):
    page = await get_json(jp_fetch, sample_store.finished, "results", trial=2, after=2)
    assert {r["trial_id"] for r in page["results"]} == {2}
    assert [r["seq"] for r in page["results"]] == [3, 4, 5]
    assert page["next"] == 5
    assert all(r["value"] == r["metrics"]["val_loss"] for r in page["results"])


@pytest.mark.parametrize(
    ("route", "key", "value"),
    [
        ("trials", "limit", "0"),
        ("trials", "limit", "1001"),
        ("trials", "offset", "-1"),
        ("trials", "offset", "abc"),
        ("trials", "limit", "1.5"),
        ("results", "after", "-3"),
        ("results", "trial", "x"),
        ("results", "limit", "99999999999999999999"),
    ],
)
async def test_bad_paging_is_a_400_naming_the_argument(jp_fetch, sample_store, route, key, value):
    code, body = await error_of(jp_fetch, sample_store.finished, route, params={key: value})
    assert code == 400
    assert body["message"].startswith(f"{key}: ")
    assert "integer from" in body["message"]


@pytest.mark.parametrize("name", ["bad name", "x" * 129, "semi;colon", "'; DROP TABLE experiments; --", "ü"])
async def test_a_bad_name_is_a_400(jp_fetch, sample_store, name):
    code, body = await error_of(jp_fetch, name, "trials")
    assert code == 400
    assert body["message"].startswith("experiment name: ")
    with read_store(sample_store) as store:
        assert len(store.experiments()) == 2


@pytest.mark.parametrize("suffix", [(), ("trials",), ("results",)])
async def test_an_unknown_name_is_a_404(jp_fetch, sample_store, suffix):
    code, body = await error_of(jp_fetch, "no-such-search", *suffix)
    assert code == 404
    assert "no-such-search" in body["message"]


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("GET", ()),
        ("GET", ("mlp-lr",)),
        ("GET", ("mlp-lr", "trials")),
        ("GET", ("mlp-lr", "results")),
        ("POST", ("cnn-depth", "stop")),
        ("POST", ("cnn-depth", "commands")),
    ],
)
@pytest.mark.parametrize("auth", ["", "token wrong-token"])
async def test_every_route_refuses_a_request_without_a_valid_token(
    jp_fetch, sample_store, method, suffix, auth
):
    code, _ = await error_of(jp_fetch, *suffix, method=method, headers={"Authorization": auth})
    assert code == 403
    with read_store(sample_store) as store:
        record = store.experiment(sample_store.running)
        assert record.stop_requested is False
        assert store.pending_commands(record.id) == []


async def test_stop_sends_a_stop_command_to_a_running_search(jp_fetch, sample_store):
    response = await jp_fetch(*API, sample_store.running, "stop", method="POST", body=b"{}",
                              request_timeout=REQUEST_TIMEOUT)
    assert response.code == 200
    sent = json.loads(response.body)
    # this store's running search has no driver to answer: the command waits for one, and says so
    assert (sent["kind"], sent["value"], sent["state"]) == ("stop", None, "pending")
    assert "the driver has not answered yet" in sent["reply"]
    with read_store(sample_store) as store:
        record = store.experiment(sample_store.running)
        assert record.stop_requested is True
        assert record.state == "RUNNING"  # the driver, not the server, ends the search
        (command,) = store.pending_commands(record.id)
        assert (command.id, command.kind, command.source) == (sent["id"], "stop", "lab")
    listed = await get_json(jp_fetch, sample_store.running)
    assert listed["stop_requested"] is True


async def test_a_running_search_says_what_limits_its_running_trials(jp_fetch, sample_store):
    assert (await get_json(jp_fetch, sample_store.running))["limited_by"] is None
    with Store(sample_store.path) as store:  # what the driver writes when a resource limits the slots
        store.add_event(store.experiment(sample_store.running).id, "slots", {"slots": 2, "limited_by": "gpu"})
    assert (await get_json(jp_fetch, sample_store.running))["limited_by"] == "gpu"


async def test_stop_of_a_finished_search_is_a_409_and_writes_nothing(jp_fetch, sample_store):
    code, body = await error_of(jp_fetch, sample_store.finished, "stop", method="POST")
    assert code == 409
    assert body["message"] == f"search {sample_store.finished!r} is not running (COMPLETED)"
    with read_store(sample_store) as store:
        record = store.experiment(sample_store.finished)
        assert record.stop_requested is False
        assert store.pending_commands(record.id) == []


async def test_stop_of_an_unknown_search_is_a_404(jp_fetch, sample_store):
    code, _ = await error_of(jp_fetch, "no-such-search", "stop", method="POST")
    assert code == 404


class TestDefaultStorePath:
    """Without HpnbServer.store_path the routes read $HPNB_HOME/hpnb.sqlite."""

    @pytest.fixture
    def hpnb_home(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        home = tmp_path / "home-from-env"
        monkeypatch.setenv("HPNB_HOME", str(home))
        return home

    @pytest.fixture
    def jp_server_config(self, hpnb_home: Path) -> dict[str, object]:
        return {"ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}}}

    async def test_a_missing_store_lists_nothing(self, jp_fetch, hpnb_home):
        assert (await get_json(jp_fetch))["experiments"] == []
        assert not (hpnb_home / "hpnb.sqlite").exists()

    async def test_the_store_under_hpnb_home_is_listed(self, jp_fetch, hpnb_home):
        sample = write_sample_store(hpnb_home / "hpnb.sqlite")
        names = [e["name"] for e in (await get_json(jp_fetch))["experiments"]]
        assert sorted(names) == sorted([sample.finished, sample.running])


class TestRealSearch:
    """The routes serve what a real hpnb.search stored."""

    @pytest.fixture
    def jp_server_config(self, finished_search) -> dict[str, object]:
        return {
            "ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
            "HpnbServer": {"store_path": str(finished_search.store.path)},
        }

    async def test_list_trials_and_results_match_the_search(self, jp_fetch, finished_search):
        (listed,) = (await get_json(jp_fetch))["experiments"]
        assert (listed["name"], listed["state"], listed["done"], listed["budget"]) == (
            "real-search",
            "COMPLETED",
            4,
            4,
        )
        best = finished_search.best
        assert listed["best"]["value"] == best["value"]
        assert listed["best"]["params"] == best["params"]

        trials = (await get_json(jp_fetch, "real-search", "trials"))["trials"]
        assert [t["trial_id"] for t in trials] == [0, 1, 2, 3]
        assert all(t["state"] == "COMPLETED" and t["score"] is not None for t in trials)

        page = await get_json(jp_fetch, "real-search", "results")
        steps = sorted((r["trial_id"], r["step"]) for r in page["results"])
        assert steps == [(trial, step) for trial in range(4) for step in range(5)]
