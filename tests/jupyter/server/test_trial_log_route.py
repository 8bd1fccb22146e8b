"""GET /hpnb/api/experiments/NAME/trials/ID/logs against a real jupyter_server and store file."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.core.store import Store
from hpnb.core.trial_output import MAX_BYTES, MAX_LINES, TrialOutput
from tests.jupyter.server.sample_store import SampleStore
from tests.jupyter.server.test_routes import API, error_of, get_json

pytestmark = pytest.mark.slow

FAILED_TRIAL = 6  # the sample store's finished search: trials 0-5 completed, 6 failed


def _keep_output(sample: SampleStore, trial_id: int, output: TrialOutput) -> None:
    with Store(sample.path) as store:
        store.set_trial_output(store.experiment(sample.finished).id, trial_id, output)


async def test_a_trial_log_has_what_it_printed_its_traceback_worker_and_peak_memory(jp_fetch, sample_store):
    garbage = "\x00\x1b[1mbold\x1b[0m \udcff\n"
    _keep_output(sample_store, FAILED_TRIAL, TrialOutput(
        stdout="epoch 0\n" + garbage, stderr="WARNING:root:diverging\n", stdout_bytes=30, stderr_bytes=23,
        worker="tcp://127.0.0.1:4000", peak_memory_bytes=250_000_000))
    body = await get_json(jp_fetch, sample_store.finished, "trials", str(FAILED_TRIAL), "logs")
    assert body["trial_id"] == FAILED_TRIAL and body["state"] == "FAILED"
    assert body["stdout"] == "epoch 0\n\ufffdbold \ufffd\n"
    assert body["stderr"] == "WARNING:root:diverging\n"
    assert body["traceback"] == "ValueError: diverged"
    assert (body["worker"], body["peak_memory_bytes"]) == ("tcp://127.0.0.1:4000", 250_000_000)
    assert (body["max_lines"], body["max_bytes"], body["truncated"]) == (MAX_LINES, MAX_BYTES, False)


async def test_a_trial_with_no_output_kept_says_so(jp_fetch, sample_store):
    body = await get_json(jp_fetch, sample_store.finished, "trials", "0", "logs")
    assert (body["stdout"], body["stderr"], body["peak_memory_bytes"]) == ("", "", None)
    assert "no output was kept" in body["note"]


async def test_an_unknown_trial_is_a_404_naming_the_ids_there_are(jp_fetch, sample_store):
    code, body = await error_of(jp_fetch, sample_store.finished, "trials", "99", "logs")
    assert code == 404
    assert body["message"] == f"search {sample_store.finished!r} has no trial 99; its trials are 0 to 6"


@pytest.mark.parametrize("trial", ["abc", "-1", "1.5", "٣", str(2**64)])
async def test_a_trial_id_that_is_not_an_integer_is_a_400(jp_fetch, sample_store, trial):
    code, body = await error_of(jp_fetch, sample_store.finished, "trials", trial, "logs")
    assert code == 400
    assert body["message"].startswith(f"trial: {trial!r} is not allowed; use a trial id")


async def test_an_unknown_or_bad_name_is_refused(jp_fetch, sample_store):
    code, body = await error_of(jp_fetch, "no-such-search", "trials", "0", "logs")
    assert code == 404 and "no experiment named 'no-such-search'" in body["message"]
    code, _ = await error_of(jp_fetch, "bad name!", "trials", "0", "logs")
    assert code == 400


async def test_the_route_needs_an_authenticated_user(jp_fetch, sample_store):
    with pytest.raises(HTTPClientError) as raised:
        await jp_fetch(*API, sample_store.finished, "trials", "0", "logs", headers={"Authorization": ""})
    assert raised.value.code == 403
    assert json.loads(raised.value.response.body)["message"] != ""  # type: ignore[union-attr]
