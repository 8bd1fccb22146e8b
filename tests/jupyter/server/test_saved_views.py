"""A notebook saved through the server (as JupyterLab and Notebook 7 save it) keeps a dashboard's
summary instead of a view of a widget model it does not keep, so that opening it again draws the
summary and logs no "widget model not found"; other widgets and kept models are left alone."""

from __future__ import annotations

import json

from hpnb.core.summary import ExperimentState, SearchSummary
from hpnb.jupyter.dashboard.data import Header
from hpnb.jupyter.dashboard.static import summary_html
from hpnb.jupyter.server.saved_views import WIDGET_STATE, WIDGET_VIEW


def _dashboard_output(model_id: str) -> dict[str, object]:
    header = Header(SearchSummary("demo", ExperimentState.COMPLETED, "loss", "min", "random", 4, 1,
                                  {"COMPLETED": 4}, 0.0, 9.0, 9.0, None, None, 2, 0.25))  # fmt: skip
    return {"output_type": "display_data", "metadata": {},
            "data": {WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": model_id},
                     "text/html": summary_html(header, [], []),
                     "text/plain": "hpnb search 'demo'"}}  # fmt: skip


def _notebook(outputs: list[dict[str, object]], kept: list[str]) -> dict[str, object]:
    cells = [{"cell_type": "code", "execution_count": 1, "id": f"c{i}", "metadata": {}, "outputs": [output],
              "source": "%%hpsearch train"} for i, output in enumerate(outputs)]  # fmt: skip
    state = {WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": {m: {} for m in kept}}}
    metadata = {"widgets": state} if kept else {}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


async def test_a_saved_notebook_keeps_the_dashboards_summary_not_its_unsaved_view(jp_fetch, jp_root_dir):
    slider = {"output_type": "display_data", "metadata": {},
              "data": {WIDGET_VIEW: {"model_id": "slider"}, "text/plain": "IntSlider(value=0)"}}  # fmt: skip
    notebook = _notebook([_dashboard_output("gone"), _dashboard_output("kept"), slider], kept=["kept"])
    body = json.dumps({"type": "notebook", "format": "json", "content": notebook})
    await jp_fetch("api", "contents", "saved.ipynb", method="PUT", body=body)
    saved = json.loads((jp_root_dir / "saved.ipynb").read_text())
    data = [cell["outputs"][0]["data"] for cell in saved["cells"]]
    assert WIDGET_VIEW not in data[0] and 'class="hpnb-static"' in "".join(data[0]["text/html"])
    assert data[1][WIDGET_VIEW]["model_id"] == "kept"  # its state is saved: the widget comes back
    assert data[2][WIDGET_VIEW]["model_id"] == "slider"  # not a dashboard: left as it was
