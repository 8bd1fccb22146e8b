"""How the dashboard looks, shared with the JupyterLab extension: colours, digits of numbers and
axis rules, read from ``look.js`` (an object in strict JSON), which the Lab extension's build writes
from its source ``labextension/src/look.ts``.

Example:
    >>> COLORS["best"], SIGNIFICANT
    ('#2ca02c', 4)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _read(path: Path) -> dict[str, Any]:
    """The object ``look.js`` exports (``export const LOOK = {...};``)."""
    text = path.read_text(encoding="utf-8")
    start = text.index("{", text.index("export const LOOK"))
    found: dict[str, Any] = json.loads(text[start:text.rindex("}") + 1])
    return found


_LOOK = _read(Path(__file__).parent / "look.js")

#: colours by role: best, selected, running, completed, faded; ``STATE_COLORS`` by state.
COLORS: dict[str, str] = {key: value for key, value in _LOOK["colors"].items() if isinstance(value, str)}
STATE_COLORS: dict[str, str] = dict(_LOOK["colors"]["states"])
#: significant digits of every score and parameter value shown.
SIGNIFICANT: int = int(_LOOK["numbers"]["significant"])
#: d3 format of a log axis' tick labels (one format for every tick).
LOG_TICKS: str = _LOOK["axes"]["log_tick_format"]
#: added to the title of a log-scaled parameter's axis.
LOG_SUFFIX: str = _LOOK["axes"]["log_title_suffix"]
#: a metric's value axis: ``margin`` of the span on each side, ``flat``/``flat_zero`` for a flat series.
SCALES: dict[str, float] = {key: float(value) for key, value in _LOOK["scales"].items()}
