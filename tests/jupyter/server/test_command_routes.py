"""The command routes against a real jupyter_server, a real store and a real driver: a search run
by ``hpnb.search`` on a local Dask cluster in this process, which answers what the routes send."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import cloudpickle
import pytest
from tornado.httpclient import HTTPClientError

import hpnb
from hpnb.core.store import Store
from hpnb.jupyter.server.command_route import COMMAND_WAIT
from tests.local_cluster import shared_local_client
from tests.runner import resumable
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

cloudpickle.register_pickle_by_value(resumable)

API = ("hpnb", "api", "experiments")
REQUEST_TIMEOUT = 120.0


async def command(jp_fetch, name: str, body: object) -> dict:
    response = await jp_fetch(*API, name, "commands", method="POST", body=json.dumps(body),
                              request_timeout=REQUEST_TIMEOUT)
    assert response.code == 200
    return json.loads(response.body)


async def refused(jp_fetch, name: str, body: bytes | str) -> tuple[int, str]:
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, name, "commands", method="POST", body=body, request_timeout=REQUEST_TIMEOUT)
    assert raised.value.response is not None
    return raised.value.code, json.loads(raised.value.response.body)["message"]


async def read_again(jp_fetch, name: str, command_id: object) -> dict:
    response = await jp_fetch(*API, name, "commands", str(command_id), request_timeout=REQUEST_TIMEOUT)
    assert response.code == 200
    return json.loads(response.body)


def trial_state(search: hpnb.Search, trial_id: int) -> str | None:
    """The trial's state as stored, None before it exists."""
    trials = {t.trial_id: t.state for t in search.store.trials(search.experiment_id)}
    return trials.get(trial_id)


def checkpointed(search: hpnb.Search, trial_id: int) -> bool:
    """Whether the trial runs and has a checkpoint (so that it can be paused)."""
    trials = {t.trial_id: t for t in search.store.trials(search.experiment_id)}
    trial = trials.get(trial_id)
    return trial is not None and trial.state == "RUNNING" and bool(trial.checkpoint)


class TestLiveSearch:
    """Every kind of command, carried out by the search's driver and answered through the route."""

    @pytest.fixture
    def live_search(self, tmp_path: Path, local_clusters: None) -> Iterator[hpnb.Search]:
        search = hpnb.search(partial(resumable.counted_steps, steps=600, pause=0.1), name="steered",
                             store=tmp_path / "hpnb.sqlite", client=shared_local_client(), metric="loss",
                             trials=4, parallel=2, seed=0, parameters={"x": {"min": 1.0, "max": 2.0}})
        yield search
        if search.is_live:
            search.stop()
        search.wait(patience(60))

    @pytest.fixture
    def jp_server_config(self, live_search: hpnb.Search) -> dict[str, object]:
        return {"ServerApp": {"jpserver_extensions": {"hpnb.jupyter.server": True}},
                "HpnbServer": {"store_path": str(live_search.store.path)}}

    async def test_the_driver_carries_out_and_answers_each_command(self, jp_fetch, live_search):
        search = live_search
        wait_until(lambda: checkpointed(search, 0) and checkpointed(search, 1), 120, "trials 0, 1 under way")

        paused = await command(jp_fetch, "steered", {"kind": "pause_trial", "value": 0})
        assert (paused["kind"], paused["value"], paused["state"]) == ("pause_trial", 0, "done")
        assert paused["reply"] == "trial 0 pauses at its next decision point, from its latest checkpoint"
        wait_until(lambda: trial_state(search, 0) == "PAUSED", 60, "trial 0 paused")
        wait_until(lambda: trial_state(search, 2) == "RUNNING", 60, "trial 2 in trial 0's slot")

        resumed = await command(jp_fetch, "steered", {"kind": "resume_trial", "value": 0})
        assert (resumed["state"], resumed["reply"]) == ("done", "trial 0 resumes in the next free slot")

        stopped = await command(jp_fetch, "steered", {"kind": "stop_trial", "value": 1})
        assert (stopped["state"], stopped["reply"]) == ("done", "trial 1 is asked to stop")
        wait_until(lambda: trial_state(search, 1) == "STOPPED", 60, "trial 1 stopped")
        wait_until(lambda: trial_state(search, 0) == "RUNNING", 60, "trial 0 running again in trial 1's slot")

        code, reason = await refused(jp_fetch, "steered", json.dumps({"kind": "stop_trial", "value": 1}))
        assert (code, reason) == (409, "trial 1 already finished (STOPPED)")  # the driver's own answer

        extended = await command(jp_fetch, "steered", {"kind": "extend", "value": 3})
        assert extended["reply"] == "search 'steered' has a budget of 7 trials now (+3)"
        assert await read_again(jp_fetch, "steered", extended["id"]) == extended
        wait_until(lambda: search.store.experiment("steered").budget == 7, 30, "the budget stored")

        narrowed = await command(jp_fetch, "steered", {"kind": "parallel", "value": 1})
        assert narrowed["reply"] == "search 'steered' runs at most 1 trial at once now"
        wait_until(lambda: search.store.experiment("steered").parallel == 1, 30, "parallel stored")

        response = await jp_fetch(*API, "steered", "stop", method="POST", body=b"",  # the sidebar's route
                                  request_timeout=REQUEST_TIMEOUT)
        ended = json.loads(response.body)
        assert (response.code, ended["kind"], ended["state"]) == (200, "stop", "done")
        assert ended["reply"].startswith("search 'steered' stops")
        assert search.wait(patience(120)).state == "STOPPED"
        sent = search.store.events(search.experiment_id)
        sources = [e["data"]["source"] for e in sent if e["kind"] in ("pause_trial", "extend", "stop")]
        assert sources == ["lab", "lab", "lab"]

        code, reason = await refused(jp_fetch, "steered", json.dumps({"kind": "extend", "value": 1}))
        assert (code, reason) == (409, "search 'steered' is not running (STOPPED)")


@pytest.mark.parametrize(("body", "field", "allowed"), [
    ({"kind": "explode"}, "kind", "allowed: stop, stop_trial, pause_trial, resume_trial, extend, parallel"),
    ({"value": 3}, "kind", "allowed: stop, stop_trial"),
    ({"kind": "extend", "value": -3}, "value", "the number of trials to add must be positive (got -3)"),
    ({"kind": "extend", "value": 10**9}, "value", "extend takes at most 100000"),
    ({"kind": "parallel", "value": 0}, "value", "at least 1 trial must run at once"),
    ({"kind": "stop_trial", "value": "1; DROP TABLE commands"}, "value", "needs a trial id, a whole number"),
    ({"kind": "pause_trial", "value": 1.5}, "value", "needs a trial id, a whole number (got 1.5)"),
    ({"kind": "pause_trial"}, "value", "needs a trial id"),
    ({"kind": "stop", "value": 2}, "value", "stop takes no value"),
    ({"kind": "stop", "path": "../x"}, "body", "fields: kind, value"),
    (["stop"], "body", "must be a JSON object"),
    ("{not json", "body", "not JSON"),
])
async def test_a_bad_command_is_a_400_naming_the_field_and_sends_nothing(jp_fetch, sample_store, body, field,
                                                                         allowed):
    raw = body if isinstance(body, str) else json.dumps(body)
    code, message = await refused(jp_fetch, sample_store.running, raw)
    assert code == 400
    assert message.startswith(f"{field}: ") and allowed in message
    with Store(sample_store.path, readonly=True) as store:
        assert store.pending_commands(store.experiment(sample_store.running).id) == []


async def test_a_command_to_an_unknown_search_or_trial_is_a_404_naming_it(jp_fetch, sample_store):
    code, message = await refused(jp_fetch, "no-such-search", json.dumps({"kind": "extend", "value": 2}))
    assert code == 404 and "no-such-search" in message
    code, message = await refused(jp_fetch, sample_store.running, '{"kind": "stop_trial", "value": 99}')
    assert (code, message) == (404, f"search {sample_store.running!r} has no trial 99; its trials are 0 to 3")


async def test_a_command_to_a_search_whose_driver_died_is_refused_saying_so(jp_fetch, sample_store):
    with Store(sample_store.path) as store:
        record = store.create_experiment("orphan", {}, metric="loss", mode="min", strategy="random", budget=4,
                                         parallel=1)
        store.update_experiment(record.id, state="RUNNING", heartbeat=time.time() - 60)  # beat a minute ago
    code, message = await refused(jp_fetch, "orphan", json.dumps({"kind": "extend", "value": 2}))
    assert code == 409
    assert message.startswith("search 'orphan' is not running: its driver is gone (INTERRUPTED)")


async def test_waiting_for_an_answer_holds_up_no_other_route(jp_fetch, sample_store):
    # the sample's running search has no driver: its command waits the whole bound, then says so
    started = time.monotonic()
    waiting = asyncio.ensure_future(command(jp_fetch, sample_store.running, {"kind": "extend", "value": 2}))
    listed = await jp_fetch(*API, request_timeout=REQUEST_TIMEOUT)
    assert listed.code == 200 and not waiting.done()
    answer = await waiting
    assert time.monotonic() - started >= COMMAND_WAIT
    assert answer["state"] == "pending"
    assert answer["reply"] == ("extend 2 was sent; the driver has not answered yet "
                               "(it carries it out when it reads it)")
    assert await read_again(jp_fetch, sample_store.running, answer["id"]) == answer  # still waiting


async def test_a_command_is_read_again_only_through_its_own_search(jp_fetch, sample_store):
    with Store(sample_store.path) as store:
        sent = store.send_command(store.experiment(sample_store.running).id, "extend", 2, source="cli")
        store.answer_command(sent.id, "refused", "search 'cnn-depth' is not running: its driver is gone")
    again = await read_again(jp_fetch, sample_store.running, sent.id)
    assert again == {"id": sent.id, "kind": "extend", "value": 2, "state": "refused",
                     "reply": "search 'cnn-depth' is not running: its driver is gone"}
    wrong = [(sample_store.finished, str(sent.id), 404), (sample_store.running, "999", 404),
             (sample_store.running, "-1", 400), ("no-such-search", str(sent.id), 404)]
    for name, command_id, code in wrong:
        with pytest.raises(HTTPClientError) as raised:
            await jp_fetch(*API, name, "commands", command_id, request_timeout=REQUEST_TIMEOUT)
        assert raised.value.code == code
        assert raised.value.response is not None
        message = json.loads(raised.value.response.body)["message"]
        assert (command_id if code == 400 else name) in message
