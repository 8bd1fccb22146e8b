"""The page-wide registry of plotly.js that the dashboard's widget modules share.

anywidget loads each widget's module on its own, so the registry's code
(``plotly_registry.js``) is prepended to the module of every widget that uses it.

Example:
    >>> "function plotlyEntry" in with_plotly_registry("plot.js")
    True
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent


def with_plotly_registry(module: str, *uses: str) -> str:
    """The source of the dashboard's JavaScript ``module``, the registry's code first, then the
    modules it ``uses`` (JavaScript of this package, such as ``parallel_coordinates.js``, which
    ``jlpm build`` writes from the Lab extension's TypeScript)."""
    parts = ("plotly_registry.js", *uses, module)
    return "".join((_HERE / part).read_text(encoding="utf-8") for part in parts)
