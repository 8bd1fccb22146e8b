"""``GET /hpnb/api/plotly.js``: the dashboards' plotly.js, for the page to load before a kernel
sends it (the Lab extension imports it when a notebook uses hpnb)."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from hpnb.jupyter.dashboard.plotly_code import plotly_js_module, plotly_version, template

pytestmark = pytest.mark.slow


async def test_it_is_the_kernels_plotly_module_with_its_version_and_template(jp_fetch, sample_store):
    response = await jp_fetch("hpnb", "api", "plotly.js")
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert response.headers["X-Plotly-Version"] == plotly_version()
    body = response.body
    sent = plotly_js_module()
    assert body.startswith(sent)  # the very bytes the kernel's widget sends: one registry entry serves both
    exported = body[len(sent):].decode().strip()
    assert exported.startswith("export const template = ") and exported.endswith(";")
    assert json.loads(exported.removeprefix("export const template = ").removesuffix(";")) == template()


async def test_a_page_that_has_it_gets_a_304(jp_fetch, sample_store):
    first = await jp_fetch("hpnb", "api", "plotly.js")
    assert "no-cache" in first.headers["Cache-Control"]  # revalidated: an upgraded plotly is seen at once
    with pytest.raises(HTTPClientError) as answer:
        await jp_fetch("hpnb", "api", "plotly.js", headers={"If-None-Match": first.headers["Etag"]})
    assert answer.value.code == 304


@pytest.mark.parametrize("auth", ["", "token wrong-token"])
async def test_it_needs_a_valid_token(jp_fetch, sample_store, auth):
    with pytest.raises(HTTPClientError) as answer:
        await jp_fetch("hpnb", "api", "plotly.js", headers={"Authorization": auth})
    assert answer.value.code == 403
