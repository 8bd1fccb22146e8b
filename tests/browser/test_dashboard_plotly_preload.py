"""plotly.js for the notebook dashboards is loaded when a notebook that uses hpnb opens, before
any cell runs, and the first dashboard's plots use it: the page evaluates plotly.js once, not
again when the kernel sends it (see labextension/src/dashboardPlotly.ts)."""

from __future__ import annotations

import time

import pytest

from hpnb.jupyter.dashboard.plotly_code import plotly_version
from tests.browser.stored_searches import StoredSearches, write_stored_searches
from tests.browser.test_dashboard_e2e import notebook_page, run_all_cells, wait_until

pytestmark = pytest.mark.slow

VIEWPORT = {"width": 1300, "height": 1100}
#: counts the scripts of more than 1 MB the page imports from a Blob (plotly.js, wherever it
#: comes from; the widgets' own modules are a few kilobytes).
COUNT_PLOTLY_IMPORTS = """
window.hpnbLargeScripts = 0;
const made = URL.createObjectURL;
URL.createObjectURL = function (blob) {
  if (blob && blob.type === 'text/javascript' && blob.size > 1000000) window.hpnbLargeScripts += 1;
  return made.call(URL, blob);
};
"""
LOADED = """async version => {
  const entry = globalThis[Symbol.for('hpnb.plotly-js')]?.get(version);
  if (!entry) return false;
  const { Plotly, template } = await entry.promise;
  return typeof Plotly.react === 'function' && Boolean(template.layout);
}"""


@pytest.fixture(scope="module")
def stored(lab_server) -> StoredSearches:
    return write_stored_searches(lab_server.store.path)


def test_a_notebook_that_loads_hpnb_gets_plotly_before_its_first_cell_runs(browser, lab_server, stored):
    sources = ["%load_ext hpnb", f"%hpsearch show {stored.paged}"]
    with notebook_page(browser, lab_server, "preload.ipynb", sources, "preload", VIEWPORT,
                       init_script=COUNT_PLOTLY_IMPORTS) as (page, log):  # fmt: skip
        assert page.locator(".jp-InputPrompt", has_text="[1]").count() == 0  # no cell has run
        assert wait_until(page, log, LOADED, arg=plotly_version(), what="plotly.js in the page's registry")
        assert page.evaluate("window.hpnbLargeScripts") == 1

        run_all_cells(page, log)
        dashboard = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea")
        dashboard.locator(".js-plotly-plot .main-svg").first.wait_for()
        assert page.evaluate("window.hpnbLargeScripts") == 1  # the kernel's copy was not evaluated again
        assert log.problems() == []


def test_a_notebook_that_does_not_use_hpnb_loads_no_plotly(browser, lab_server):
    with notebook_page(browser, lab_server, "plain.ipynb", ["import math\nmath.pi"], "plain", VIEWPORT,
                       init_script=COUNT_PLOTLY_IMPORTS) as (page, _):  # fmt: skip
        # What is under test is that nothing happens: the preload, had it been started when the
        # editors were created, would have begun within this grace time (its idle callback's timeout).
        time.sleep(2)
        assert page.evaluate("window.hpnbLargeScripts") == 0
        assert page.evaluate("globalThis[Symbol.for('hpnb.plotly-js')] === undefined")
