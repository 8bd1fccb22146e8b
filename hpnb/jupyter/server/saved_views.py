"""A saved notebook keeps a dashboard's static summary, not a view of a widget it cannot bring back.

JupyterLab and Notebook 7 save a widget's output as a view of its model
(``application/vnd.jupyter.widget-view+json``) and, unless the user turned on saving the widget
state, not the model itself. Opened again, the view finds no model: the widget manager logs
"widget model not found" and draws an error where the search's summary was. The dashboard's
output also carries its summary as HTML (``hpnb-static``) and text; so before the server writes
a notebook, each dashboard output whose model the notebook does not keep loses its widget view,
and every client shows the summary. The open notebook keeps its live dashboard: only the file
changes.

Example:
    >>> data = {WIDGET_VIEW: {"model_id": "m1"}, "text/html": '<div class="hpnb-static">'}
    >>> cell = {"outputs": [{"data": data}]}
    >>> drop_unsaved_views({"cells": [cell], "metadata": {}})
    1
    >>> sorted(cell["outputs"][0]["data"])
    ['text/html']
"""

from __future__ import annotations

from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: the mark of the dashboard's HTML summary (hpnb.jupyter.dashboard.static.summary_html).
STATIC_MARK = 'class="hpnb-static"'


def saved_models(notebook: dict[str, Any]) -> set[str]:
    """The ids of the widget models whose state the notebook keeps in its metadata."""
    widgets = notebook.get("metadata", {}).get("widgets")
    state = widgets.get(WIDGET_STATE, {}).get("state") if isinstance(widgets, dict) else None
    return set(state) if isinstance(state, dict) else set()


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def drop_unsaved_views(notebook: dict[str, Any]) -> int:
    """Removes the widget view of each dashboard output whose model ``notebook`` does not keep;
    how many were removed."""
    kept, dropped = saved_models(notebook), 0
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs") or []:
            data = output.get("data") if isinstance(output, dict) else None
            if not isinstance(data, dict) or WIDGET_VIEW not in data:
                continue
            view = data[WIDGET_VIEW]
            model = view.get("model_id") if isinstance(view, dict) else None
            if STATIC_MARK in _text(data.get("text/html", "")) and model not in kept:
                del data[WIDGET_VIEW]
                dropped += 1
    return dropped


def before_save(model: dict[str, Any], **_: Any) -> None:
    """The contents manager's pre-save hook: a notebook is written without the dashboards' views
    it could not bring back."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        drop_unsaved_views(model["content"])
