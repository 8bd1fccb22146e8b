"""Cells and architecture weights drawn with matplotlib (``pip install matplotlib``).

:func:`draw_cell` draws one cell of a genotype as a graph: the cell's two inputs on the left
(the outputs of cells ``k-2`` and ``k-1``), its nodes, and an arrow for each edge labelled with its
operation; the nodes the cell concatenates lead to its output, ``k``. :func:`draw_weights` draws an epoch's
architecture weights (:class:`~hpnb.nas.records.EpochRecord`) as a heatmap, one row per edge.

Example:
    >>> from hpnb.nas import Genotype
    >>> genotype = Genotype.random(["max_pooling_3x3", "skip_connection"], 3, seed=0)
    >>> figure = draw_genotype(genotype)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from hpnb.nas.genotype import Genotype
from hpnb.nas.records import EpochRecord, weights_table

#: short labels of the operations, for the arrows.
SHORT = {"separable_convolution": "sep", "dilated_convolution": "dil", "avg_pooling": "avg",
         "max_pooling": "max", "skip_connection": "skip"}


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("drawing cells needs matplotlib: pip install matplotlib") from None
    return plt


def short_name(operation: str) -> str:
    """``separable_convolution_3x3`` as ``sep 3x3``."""
    kind, _, size = operation.rpartition("_")
    return f"{SHORT[kind]} {size}" if kind in SHORT else SHORT.get(operation, operation)


def cell_layout(nodes: int) -> tuple[dict[int, tuple[float, float]], tuple[float, float]]:
    """Where a drawing puts a cell's states (0 and 1 its inputs, then its nodes) and its output:
    x from 0 (the inputs) to ``nodes + 1`` (the output), y from -1 to 1.

    Example:
        >>> cell_layout(2)
        ({0: (0.0, 1.0), 1: (0.0, -1.0), 2: (1.0, 0.55), 3: (2.0, -0.55)}, (3.0, 0.0))
    """
    places = {0: (0.0, 1.0), 1: (0.0, -1.0)}
    for index in range(nodes):
        places[index + 2] = (1.0 + index, 0.55 * (-1) ** index)
    return places, (nodes + 1.0, 0.0)


def draw_cell(genotype: Genotype, cell: str = "normal", ax: Any = None) -> Any:
    """Draw ``genotype``'s ``cell`` (``normal`` or ``reduce``) on ``ax`` (a new one by default)."""
    plt = _pyplot()
    nodes = getattr(genotype, cell)
    concat = getattr(genotype, f"{cell}_concat")
    if ax is None:
        _, ax = plt.subplots(figsize=(2.2 + 1.6 * len(nodes), 3))
    places, output = cell_layout(len(nodes))
    for index, edges in enumerate(nodes):
        for operation, state in edges:
            start, end = places[state], places[index + 2]
            ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "color": "0.4",
                                                              "shrinkA": 14, "shrinkB": 14})
            middle = (0.4 * start[0] + 0.6 * end[0], 0.4 * start[1] + 0.6 * end[1])
            ax.text(*middle, short_name(operation), fontsize=8, ha="center", va="center",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})
    for state in concat:
        ax.annotate("", xy=output, xytext=places[state], arrowprops={"arrowstyle": "->", "color": "0.75",
                                                                     "shrinkA": 14, "shrinkB": 14})
    labels = {0: "k-2", 1: "k-1", **{i + 2: str(i) for i in range(len(nodes))}}
    for state, (x, y) in places.items():
        colour = "#cfe8ff" if state < 2 else "#ffe9b3"
        ax.text(x, y, labels[state], ha="center", va="center", bbox={"boxstyle": "circle", "fc": colour})
    ax.text(*output, "k", ha="center", va="center", bbox={"boxstyle": "circle", "fc": "#d5f5d5"})
    ax.set_xlim(-0.6, output[0] + 0.6)
    ax.set_ylim(-1.6, 1.6)
    ax.set_axis_off()
    ax.set_title(f"{cell} cell")
    return ax


def draw_genotype(genotype: Genotype, title: str = "") -> Any:
    """Both cells of ``genotype`` side by side (the normal one only when it has no reduction cell)."""
    plt = _pyplot()
    cells = ["normal", "reduce"] if genotype.reduce else ["normal"]
    figure, axes = plt.subplots(1, len(cells), figsize=(len(cells) * (2.2 + 1.6 * genotype.nodes), 3),
                                squeeze=False)
    for ax, cell in zip(axes[0], cells):
        draw_cell(genotype, cell, ax)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def draw_weights(record: EpochRecord, cell: str = "normal", ax: Any = None) -> Any:
    """The softmax of the architecture weights of ``cell`` at one epoch: one row per edge."""
    plt = _pyplot()
    rows = weights_table(record, cell)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.0 + 0.7 * len(record.operations), 0.8 + 0.35 * len(rows)))
    image = ax.imshow([values for _, values in rows], cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(record.operations)), [short_name(op) for op in record.operations], rotation=45,
                  ha="right")
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.set_title(f"{cell} cell, epoch {record.epoch}")
    ax.figure.colorbar(image, ax=ax)
    return ax
