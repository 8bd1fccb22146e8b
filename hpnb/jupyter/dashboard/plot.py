"""One plot of the dashboard: plotly.js traces and layout as plain JSON, drawn by ``plot.js``.

A :class:`Plot` holds what plotly.js draws (``data``, a list of traces, and ``plot_layout``:
``layout`` is the widget's own CSS layout); the front end draws it with ``Plotly.react``
whenever they change, at the width of its place. A parcoords trace (finished by
:mod:`hpnb.views.parcoords`) is drawn by ``parallel_coordinates.js`` instead (a canvas: plotly's
parcoords need WebGL), the Lab's renderer built from ``labextension/src/parallelCoordinates.ts``.
A click on a point whose trace carries ``customdata`` (a trial id per point) calls
:attr:`Plot.on_click` with that id.
plotly.js itself comes once per kernel with :func:`~.plotly_code.shared_plotly_code`.
Values that JSON cannot carry (NaN, infinities) are sent as null, which plotly.js leaves out.

Example:
    >>> plot = Plot(layout={"height": 300})
    >>> plot.show([{"type": "scatter", "x": [0, 1], "y": [1.0, float("nan")]}])
    >>> plot.data[0]["y"]
    [1.0, None]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anywidget
import traitlets

from hpnb.jupyter.dashboard.plotly_code import shared_plotly_code
from hpnb.jupyter.dashboard.plotly_registry import with_plotly_registry
from hpnb.views.plotly_js import plotly_version

#: plotly.js options of every plot: no logo, no mode bar until hovered.
CONFIG = {"displaylogo": False, "responsive": True}


def merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``extra``, nested dicts (axes, legends) merged key by key; a None in
    ``extra`` removes the key.

    Example:
        >>> merged({"xaxis": {"title": "trial", "dtick": 1}}, {"xaxis": {"dtick": None, "type": "date"}})
        {'xaxis': {'title': 'trial', 'type': 'date'}}
    """
    out = dict(base)
    for key, value in extra.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (lists, tuples and dicts walked)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(item) is float and math.isfinite(item) for item in value):
            return list(value)  # the common case: a column of numbers, checked in one pass
        return [json_safe(item) for item in value]
    return value


class Plot(anywidget.AnyWidget):
    """A plotly.js plot: ``data`` (traces) and ``plot_layout`` (merged over the base layout)."""

    _esm = with_plotly_registry("plot.js", "parallel_coordinates.js")
    data: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    plot_layout = traitlets.Dict({}).tag(sync=True)
    config = traitlets.Dict(CONFIG).tag(sync=True)
    plotly = traitlets.Unicode("").tag(sync=True)

    def __init__(self, data: Sequence[Mapping[str, Any]] = (),
                 layout: Mapping[str, Any] | None = None) -> None:
        shared_plotly_code()  # opened before any plot, so the page gets plotly.js first
        super().__init__(plotly=plotly_version())
        #: the layout every :meth:`show` starts from.
        self.base = dict(layout or {})
        #: called with the trial id of a clicked point (of a trace with ``customdata``), or None.
        self.on_click: Callable[[int], None] | None = None
        self.on_msg(self._front_end_says)
        self.show(data)

    def _front_end_says(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not (isinstance(content, dict) and content.get("event") == "click" and self.on_click):
            return
        trial = content.get("trial")
        if isinstance(trial, int) and not isinstance(trial, bool):
            self.on_click(trial)

    def show(self, data: Sequence[Mapping[str, Any]], layout: Mapping[str, Any] | None = None) -> None:
        """Draw ``data`` with the base layout updated by ``layout`` (one message; any thread)."""
        with self.hold_sync():
            self.data = json_safe(list(data))
            self.plot_layout = json_safe(merged(self.base, layout or {}))
