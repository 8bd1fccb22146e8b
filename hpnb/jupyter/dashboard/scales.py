"""The ranges of the dashboard's metric axes, and the plot area before there is data.

plotly's own autorange draws a flat series (four trials at 0.9685) on 0-1.8 and pads data in
[0, 1] past 1; here a metric's axis spans its data with a margin, a flat series is centred in
a small span, and data that lie within [0, 1] (accuracies, rates) or at or above 0 (losses,
times) keep their axis within those bounds.

Example:
    >>> value_range([0.9685, 0.9685])
    [0.95881, 0.97819]
    >>> value_range([0.2, 1.0])
    [0.136, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from hpnb.jupyter.dashboard.look import SCALES

#: the share of the data's span added on each side (the look's, as the Lab's scales.ts reads it).
MARGIN = SCALES["margin"]
#: a flat series spans this share of its value on each side (or FLAT_ZERO around 0).
FLAT = SCALES["flat"]
FLAT_ZERO = SCALES["flat_zero"]


def _round(value: float, span: float) -> float:
    """``value`` to a few digits more than ``span`` shows (no 0.95880000001 in the layout)."""
    if span <= 0 or not math.isfinite(span):
        return value
    digits = max(0, 3 - math.floor(math.log10(span)))
    return round(value, digits)


def value_range(values: Iterable[Any], margin: float = MARGIN) -> list[float] | None:
    """The axis range of ``values`` (numbers; None and non-finite ones left out), or None when
    there are none."""
    finite = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not finite:
        return None
    low, high = min(finite), max(finite)
    pad = (high - low) * margin if high > low else (abs(low) * FLAT or FLAT_ZERO)
    lower, upper = low - pad, high + pad
    if low >= 0:
        lower = max(0.0, lower)
    if low >= 0 and high <= 1:
        upper = min(1.0, upper)
    span = upper - lower
    return [_round(lower, span), _round(upper, span)]


def waiting_layout(text: str) -> dict[str, Any]:
    """A plot area with no axes that says what it waits for (instead of empty axes)."""
    hidden = {"visible": False, "showgrid": False, "zeroline": False}
    return {"xaxis": hidden, "yaxis": hidden, "showlegend": False,
            "annotations": [{"text": text, "showarrow": False, "xref": "paper", "yref": "paper",
                             "x": 0.5, "y": 0.5, "font": {"size": 13, "color": "#777"}}]}

