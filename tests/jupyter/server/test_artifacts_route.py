"""GET /hpnb/api/experiments/NAME/trials/ID/artifacts(/ARTIFACT) against a real jupyter_server, a
real store file and its checkpoint store (a folder beside it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.core.store import Store
from hpnb.runner.checkpoint_store import CheckpointStore, search_location
from tests.jupyter.server.sample_store import SampleStore
from tests.jupyter.server.test_routes import API, error_of, get_json

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100


def _put(sample: SampleStore, tmp_path: Path, trial_id: int, name: str, data: bytes) -> None:
    with Store(sample.path) as store:
        record = store.experiment(sample.finished)
    local = tmp_path / "artifact"
    local.write_bytes(data)
    location = search_location(sample.path, record.name, record.id, record.created, record.spec)
    CheckpointStore(location).put_artifact(trial_id, name, local)


async def test_a_trials_artifacts_are_listed_and_served(jp_fetch, sample_store, tmp_path):
    _put(sample_store, tmp_path, 2, "plots/loss.png", PNG)
    _put(sample_store, tmp_path, 2, "predictions.csv", b"x,y\n1,2\n")
    body = await get_json(jp_fetch, sample_store.finished, "trials", "2", "artifacts")
    assert [(a["name"], a["size"]) for a in body["artifacts"]] == [("plots/loss.png", len(PNG)),
                                                                     ("predictions.csv", 8)]
    assert body["artifacts"][0]["url"].endswith(f"/{sample_store.finished}/trials/2/artifacts/plots/loss.png")
    image = await jp_fetch(*API, sample_store.finished, "trials", "2", "artifacts", "plots", "loss.png")
    assert (image.body, image.headers["Content-Type"]) == (PNG, "image/png")
    assert image.headers["Content-Disposition"].startswith("inline")
    body = await get_json(jp_fetch, sample_store.finished, "trials", "3", "artifacts")
    assert body == {"artifacts": []}


@pytest.mark.parametrize("artifact", ["..%2F..%2Fhpnb.sqlite", "a%2F..%2Fb", ".tmp-x", "%2E%2E%2Fx.sqlite"])
async def test_a_name_with_dots_or_outside_the_artifacts_is_refused(jp_fetch, sample_store, artifact):
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, sample_store.finished, "trials", "2", "artifacts", artifact)
    assert raised.value.code in (400, 404)
    assert b"SQLite" not in (raised.value.response.body if raised.value.response else b"")


async def test_an_unknown_artifact_or_trial_is_a_404(jp_fetch, sample_store, tmp_path):
    _put(sample_store, tmp_path, 2, "loss.png", PNG)
    code, body = await error_of(jp_fetch, sample_store.finished, "trials", "2", "artifacts", "other.png")
    assert code == 404 and "has no artifact 'other.png'" in body["message"]
    code, _ = await error_of(jp_fetch, sample_store.finished, "trials", "99", "artifacts")
    assert code == 404


@pytest.mark.parametrize("suffix", [("artifacts",), ("artifacts", "loss.png")])
@pytest.mark.parametrize("auth", ["", "token wrong-token"])
async def test_the_artifact_routes_refuse_a_request_without_a_valid_token(jp_fetch, sample_store, tmp_path,
                                                                         suffix, auth):
    _put(sample_store, tmp_path, 2, "loss.png", PNG)
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, sample_store.finished, "trials", "2", *suffix, headers={"Authorization": auth})
    assert raised.value.code == 403
    assert json.loads(raised.value.response.body)  # an error body, not the file
