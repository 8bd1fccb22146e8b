"""What the parallel coordinates show in the page, read from their drawing (parallel_coordinates.js):
the axes with their titles and tick labels, how many lines there are and how many are in colour,
the colour bar's title, and where the selected trial's red line crosses each axis."""

from __future__ import annotations

from typing import Any

import pytest

#: the drawing of the parallel coordinates in (or of) an element, or the first matching a selector; null
#: when none is drawn.
DRAWN = """target => {
    const root = typeof target === 'string' ? document.querySelector(target) : target;
    const box = root && (root.matches('.hpnb-pc') ? root : root.querySelector('.hpnb-pc'));
    if (!box || !box.dataset.lines) return null;
    const number = (node, key) => Number(node.dataset[key]);
    const axes = [...box.querySelectorAll('g.hpnb-pc-axis')].map(g => ({
        label: g.dataset.label, x: number(g, 'x'), top: number(g, 'top'), bottom: number(g, 'bottom'),
        low: number(g, 'low'), high: number(g, 'high'),
        title: g.querySelector('.hpnb-pc-title').textContent,
        ticks: Object.fromEntries([...g.querySelectorAll('.hpnb-pc-tick')].map(
            t => [t.querySelector('text').textContent, Number(t.querySelector('line').getAttribute('y1'))])),
    }));
    const mark = box.querySelector('path.hpnb-parcoords-selected');
    const points = mark && mark.getAttribute('d').split(/[ML]/).filter(Boolean)
        .map(p => p.split(',').map(Number));
    const bar = box.querySelector('.hpnb-pc-bartitle');
    return {lines: Number(box.dataset.lines), shown: Number(box.dataset.shown), axes,
            bar_title: bar && bar.textContent,
            mark: mark && {trial: Number(mark.dataset.trial), stroke: mark.getAttribute('stroke'), points}};
}"""


def wait_drawn(page: Any, target: Any, ready: str = "d => true") -> dict:
    """The parallel coordinates in ``target`` (a selector or an element handle) once drawn and
    ``ready`` (JS, given them) holds."""
    script = f"t => {{ const d = ({DRAWN})(t); return d && ({ready})(d) ? d : null; }}"
    handle = page.wait_for_function(script, arg=target)
    found: dict = handle.json_value()
    return found


def height_on(axis: dict, value: float) -> float:
    """Where ``value`` sits on ``axis`` (its low end at the bottom)."""
    share = (value - axis["low"]) / (axis["high"] - axis["low"])
    return axis["bottom"] - share * (axis["bottom"] - axis["top"])


def assert_marked(drawing: dict, trial: int, crossings: dict[str, float | str]) -> None:
    """The red line of ``trial`` crosses each axis named in ``crossings`` on that axis, at the tick
    labelled so (a string) or at that value's height (a number)."""
    mark = drawing["mark"]
    assert mark is not None and mark["trial"] == trial and mark["stroke"] == "#d62728"
    assert len(mark["points"]) == len(drawing["axes"])
    for axis, (x, y) in zip(drawing["axes"], mark["points"], strict=True):
        assert x == pytest.approx(axis["x"], abs=0.1)
        expected = crossings.get(axis["label"])
        if isinstance(expected, str):
            assert y == pytest.approx(axis["ticks"][expected], abs=0.1), axis["label"]
        elif expected is not None:
            assert y == pytest.approx(height_on(axis, expected), abs=0.1), axis["label"]
