"""The architecture panel of a DARTS trial selected in the dashboard, under its log.

A trial of a ``nas:`` search records each epoch in its artifact ``nas/architecture.jsonl``
(:mod:`hpnb.nas.records`). The panel shows, from those records: the current genotype's cells
drawn as graphs (inline SVG), the architecture weights over the epochs (one row per edge of the
cell, one column per epoch: the colour is the weight of the edge's strongest operation, the text
that operation), and the last epoch's softmax over every operation of every edge. Plain HTML,
drawn by the kernel: no widget, no JavaScript.

Example:
    >>> from hpnb.nas.records import EpochRecord
    >>> genotype = ("Genotype(normal=[[('max_pooling_3x3',0),('skip_connection',1)]],"
    ...             "normal_concat=range(2,3),reduce=[],reduce_concat=range(2,3))")
    >>> record = EpochRecord(1, {"Validation-Accuracy": 0.5}, genotype, ("max_pooling_3x3", "skip_connection",
    ...                      "none"), {"normal": [[[0.5, 0.3, 0.2], [0.2, 0.6, 0.2]]]})
    >>> "<svg" in architecture_html([record])
    True
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from hpnb.nas.drawing import cell_layout, short_name
from hpnb.nas.genotype import Genotype
from hpnb.nas.records import ARCHITECTURE, EpochRecord, weights_table

__all__ = ["ARCHITECTURE", "architecture_html", "cell_svg", "weights_over_epochs_html"]

_WIDTH, _HEIGHT, _MARGIN = 90, 70, 24


def _shade(value: float) -> str:
    """A blue whose depth is ``value`` (0 to 1), and a text colour that reads on it."""
    level = max(0.0, min(1.0, value))
    red, green = int(255 - 200 * level), int(255 - 140 * level)
    return f"background:rgb({red},{green},255);color:{'white' if level > 0.6 else 'black'}"


def cell_svg(genotype: Genotype, cell: str) -> str:
    """One cell of ``genotype`` as an SVG graph: inputs k-2 and k-1, its nodes, its output k."""
    nodes = getattr(genotype, cell)
    places, output = cell_layout(len(nodes))

    def at(point: tuple[float, float]) -> tuple[float, float]:
        return _MARGIN + point[0] * _WIDTH, _MARGIN + (1 - point[1]) * _HEIGHT

    width, height = 2 * _MARGIN + output[0] * _WIDTH, 2 * _MARGIN + 2 * _HEIGHT
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{height:.0f}' "
             "font-family='sans-serif' font-size='10'>",
             f"<text x='4' y='12' font-weight='bold'>{cell}</text>"]
    for index, edges in enumerate(nodes):
        for operation, state in edges:
            (x1, y1), (x2, y2) = at(places[state]), at(places[index + 2])
            parts.append(f"<line x1='{x1:.0f}' y1='{y1:.0f}' x2='{x2:.0f}' y2='{y2:.0f}' stroke='#777'/>")
            tx, ty = 0.4 * x1 + 0.6 * x2, 0.4 * y1 + 0.6 * y2
            parts.append(f"<text x='{tx:.0f}' y='{ty:.0f}' text-anchor='middle' fill='#333' "
                         f"stroke='white' stroke-width='3' paint-order='stroke'>"
                         f"{html.escape(short_name(operation))}</text>")
    for state in getattr(genotype, f"{cell}_concat"):
        (x1, y1), (x2, y2) = at(places[state]), at(output)
        parts.append(f"<line x1='{x1:.0f}' y1='{y1:.0f}' x2='{x2:.0f}' y2='{y2:.0f}' stroke='#ccc'/>")
    labels = {0: "k-2", 1: "k-1", **{i + 2: str(i) for i in range(len(nodes))}}
    circles = [(places[s], labels[s], "#cfe8ff" if s < 2 else "#ffe9b3") for s in places]
    for point, label, colour in [*circles, (output, "k", "#d5f5d5")]:
        x, y = at(point)
        parts.append(f"<circle cx='{x:.0f}' cy='{y:.0f}' r='13' fill='{colour}' stroke='#555'/>"
                     f"<text x='{x:.0f}' y='{y + 3:.0f}' text-anchor='middle'>{label}</text>")
    parts.append("</svg>")
    return "".join(parts)


def weights_over_epochs_html(records: Sequence[EpochRecord], cell: str) -> str:
    """A table of one row per edge and one column per epoch: the strongest operation (``none``
    aside) and its weight as the shade."""
    names = records[-1].operations
    rows = [label for label, _ in weights_table(records[-1], cell)]
    head = "".join(f"<th>{r.epoch}</th>" for r in records)
    body = []
    for row, label in enumerate(rows):
        cells = []
        for record in records:
            values = weights_table(record, cell)[row][1]
            best = max((v, i) for i, v in enumerate(values) if names[i] != "none")
            cells.append(f"<td style='{_shade(best[0])}' title='{best[0]:.3f}'>"
                         f"{html.escape(short_name(names[best[1]]))}</td>")
        body.append(f"<tr><th>{html.escape(label)}</th>{''.join(cells)}</tr>")
    return (f"<table class='hpnb-arch-weights'><caption>{cell} cell: strongest operation per edge, "
            f"by epoch</caption><tr><th>edge \\ epoch</th>{head}</tr>{''.join(body)}</table>")


def last_weights_html(record: EpochRecord, cell: str) -> str:
    """The softmax over every operation of every edge of ``cell`` at one epoch."""
    head = "".join(f"<th>{html.escape(short_name(n))}</th>" for n in record.operations)
    body = "".join(f"<tr><th>{html.escape(label)}</th>"
                   + "".join(f"<td style='{_shade(v)}'>{v:.2f}</td>" for v in values) + "</tr>"
                   for label, values in weights_table(record, cell))
    return (f"<table class='hpnb-arch-weights'><caption>{cell} cell at epoch {record.epoch}</caption>"
            f"<tr><th></th>{head}</tr>{body}</table>")


def panel_html(artifacts: Sequence[dict[str, Any]], read: Callable[[str], bytes]) -> str:
    """The panel of a trial whose artifacts (``Search.artifacts``) hold a DARTS trial's records;
    nothing for any other trial. ``read`` fetches a file's bytes."""
    found = next((a for a in artifacts if a["name"] == ARCHITECTURE), None)
    if found is None:
        return ""
    lines = read(found["path"]).decode().splitlines()
    try:
        return architecture_html([EpochRecord.from_json(line) for line in lines if line.strip()])
    except (ValueError, KeyError, TypeError):  # a file being rewritten, or not a DARTS trial's
        return ""


def architecture_html(records: Sequence[EpochRecord]) -> str:
    """The panel for a trial's records (nothing before its first epoch)."""
    if not records:
        return ""
    last = records[-1]
    genotype = Genotype.parse(last.genotype)
    cells = ["normal", "reduce"] if genotype.reduce else ["normal"]
    style = ("<style>.hpnb-arch-weights{border-collapse:collapse;font-size:11px;margin:4px 12px 4px 0;"
             "display:inline-table}.hpnb-arch-weights td,.hpnb-arch-weights th{padding:1px 4px;"
             "text-align:center}.hpnb-arch-weights caption{text-align:left;font-weight:bold}</style>")
    stopped = f"<br><i>{html.escape(last.stopped)}</i>" if last.stopped else ""
    parts = [style, "<div class='hpnb-architecture'><b>architecture</b> "
             f"<small>epoch {last.epoch}</small>{stopped}<br>",
             "".join(cell_svg(genotype, cell) for cell in cells), "<br>",
             "".join(weights_over_epochs_html(records, cell) for cell in cells), "<br>",
             "".join(last_weights_html(last, cell) for cell in cells),
             "<br><code style='font-size:10px;word-break:break-all'>", html.escape(last.genotype),
             "</code></div>"]
    return "".join(parts)
