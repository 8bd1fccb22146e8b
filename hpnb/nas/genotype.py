"""A genotype: the cells an architecture search found, in Katib's format.

A cell has two inputs (the two previous cells' outputs, states 0 and 1) and ``nodes`` intermediate
nodes (states 2, 3, ...); each node sums two edges ``(operation, input state)``; the cell's output
concatenates the states its ``concat`` range names. A network stacks normal cells and reduction
cells (:mod:`hpnb.nas.layout`). Katib writes a genotype as
``Genotype(normal=[[('max_pooling_3x3',0),('max_pooling_3x3',1)],...],normal_concat=range(2,6),
reduce=[...],reduce_concat=range(2,6))``: :meth:`Genotype.parse` reads that text (spaces and the
DARTS paper's flat lists and short operation names too) without evaluating it, and ``str()`` writes
it back.

Example:
    >>> text = ("Genotype(normal=[[('max_pooling_3x3',0),('skip_connection',1)]],normal_concat=range(2,3),"
    ...         "reduce=[[('avg_pooling_3x3',0),('max_pooling_3x3',1)]],reduce_concat=range(2,3))")
    >>> genotype = Genotype.parse(text)
    >>> genotype.normal
    ((('max_pooling_3x3', 0), ('skip_connection', 1)),)
    >>> str(genotype) == text
    True
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hpnb.nas.vocabulary import ALL_NAMES, NONE, SKIP, canonical_name

if TYPE_CHECKING:
    import torch

Edge = tuple[str, int]
Cell = tuple[tuple[Edge, ...], ...]
_FIELDS = ("normal", "normal_concat", "reduce", "reduce_concat")


class GenotypeError(ValueError):
    """A genotype's text that cannot be read, or cells that do not hold together."""


@dataclass(frozen=True)
class Genotype:
    """The normal and reduction cells of an architecture, each node's edges and the output range.

    Attributes:
        normal: for each intermediate node, its edges ``(operation, input state)``.
        normal_concat: the states the normal cell's output concatenates.
        reduce: the reduction cell's nodes (empty: a network without reduction cells).
        reduce_concat: the states the reduction cell's output concatenates.
    """

    normal: Cell
    normal_concat: tuple[int, ...]
    reduce: Cell = ()
    reduce_concat: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("normal", "reduce"):
            _check_cell(getattr(self, name), name)
        _check_concat(self.normal_concat, len(self.normal), "normal_concat")
        if self.reduce:
            _check_concat(self.reduce_concat, len(self.reduce), "reduce_concat")

    @classmethod
    def parse(cls, text: str) -> Genotype:
        """Read Katib's text of a genotype (what its trials print as ``Best-Genotype=...``).

        Raises:
            GenotypeError: the text is not a genotype, naming what is wrong.
        """
        if not isinstance(text, str):
            raise GenotypeError(f"a genotype is text like Katib's 'Genotype(normal=...)', not a "
                                f"{type(text).__name__}")
        body = text.strip()
        if body.startswith("Best-Genotype="):
            body = body[len("Best-Genotype="):]
        try:
            tree = ast.parse(body, mode="eval").body
        except SyntaxError:
            raise GenotypeError(f"not a genotype: {_short(text)} (expected Genotype(normal=[...], "
                                "normal_concat=range(...), reduce=[...], reduce_concat=range(...)))"
                                ) from None
        if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "Genotype"
                and not tree.args):
            raise GenotypeError(f"not a genotype: {_short(text)} (expected Genotype(normal=..., ...))")
        given = {keyword.arg: keyword.value for keyword in tree.keywords}
        unknown = sorted(str(k) for k in given if k not in _FIELDS)
        if unknown or "normal" not in given:
            raise GenotypeError(f"a genotype has the fields {', '.join(_FIELDS)} "
                                f"(got {', '.join(map(str, given))})")
        normal = _cell(given["normal"], "normal")
        reduce = _cell(given["reduce"], "reduce") if "reduce" in given else ()
        return cls(normal, _concat(given.get("normal_concat"), len(normal), "normal_concat"),
                   reduce, _concat(given.get("reduce_concat"), len(reduce or normal), "reduce_concat"))

    def __str__(self) -> str:
        def cell(nodes: Cell) -> str:
            return "[" + ",".join("[" + ",".join(f"({op!r},{state})" for op, state in node) + "]"
                                  for node in nodes) + "]"

        def span(states: tuple[int, ...]) -> str:
            if states and states == tuple(range(states[0], states[-1] + 1)):
                return f"range({states[0]},{states[-1] + 1})"
            return "[" + ",".join(map(str, states)) + "]"

        return (f"Genotype(normal={cell(self.normal)},normal_concat={span(self.normal_concat)},"
                f"reduce={cell(self.reduce)},reduce_concat={span(self.reduce_concat)})")

    @property
    def nodes(self) -> int:
        """Intermediate nodes of a cell."""
        return len(self.normal)

    def operations(self, cell: str = "normal") -> list[str]:
        """The operations of one cell's edges, node by node."""
        return [op for node in getattr(self, cell) for op, _ in node]

    def count(self, operation: str, cell: str = "normal") -> int:
        """How many edges of ``cell`` run ``operation`` (e.g. skip connections)."""
        return self.operations(cell).count(canonical_name(operation))

    @classmethod
    def random(cls, operations: Sequence[str], nodes: int, *, seed: int | None = None,
               reduce: bool = True) -> Genotype:
        """A genotype drawn uniformly: each node two edges from distinct earlier states, each with an
        operation of ``operations`` (the random baseline of architecture search).

        Example:
            >>> Genotype.random(["max_pooling_3x3", "skip_connection"], 3, seed=0).nodes
            3
        """
        rng = random.Random(seed)

        def cell() -> Cell:
            return tuple(tuple((rng.choice(list(operations)), state)
                               for state in sorted(rng.sample(range(node + 2), 2)))
                         for node in range(nodes))

        concat = tuple(range(2, 2 + nodes))
        normal = cell()
        return cls(normal, concat, cell() if reduce else (), concat)

    def build(self, *, in_channels: int, classes: int, channels: int = 16, layers: int = 8,
              stem_multiplier: int = 3) -> torch.nn.Module:
        """The network of ``layers`` cells of this genotype, to train from scratch.

        Args:
            in_channels: channels of the input images (1 for grey levels, 3 for colour).
            classes: how many classes the network tells apart.
            channels: the first cells' channels (doubled at each reduction cell).
            layers: how many cells (reduction cells as :mod:`hpnb.nas.layout` places them).
            stem_multiplier: the stem's channels are ``channels * stem_multiplier``.

        Example:
            >>> genotype = Genotype.random(["max_pooling_3x3", "separable_convolution_3x3"], 2, seed=1)
            >>> net = genotype.build(in_channels=1, classes=10, channels=4, layers=3)
            >>> tuple(net(__import__("torch").zeros(2, 1, 8, 8)).shape)
            (2, 10)
        """
        from hpnb.nas.network import GenotypeNetwork

        return GenotypeNetwork(self, in_channels=in_channels, classes=classes, channels=channels,
                               layers=layers, stem_multiplier=stem_multiplier)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON): ``{"normal": [[[op, state], ...], ...], "normal_concat": [...], ...}``."""
        return {name: [list(map(list, node)) for node in getattr(self, name)] if name in ("normal", "reduce")
                else list(getattr(self, name)) for name in _FIELDS}


def derive(weights: Sequence[Sequence[Sequence[float]]], names: Sequence[str], k: int = 2) -> Cell:
    """A cell from a supernet's architecture weights (Katib's and DARTS's rule): on each edge its
    strongest operation other than ``none``; each node keeps the ``k`` edges whose strongest
    operation is strongest.

    Args:
        weights: for each node, for each of its input edges, a weight per operation of ``names``.
        names: the operations of an edge, in order (``none`` among them or not).
    """
    cell = []
    for node in weights:
        best = []
        for state, row in enumerate(node):
            choices = [(value, index) for index, value in enumerate(row) if names[index] != NONE]
            value, index = max(choices)
            best.append((value, state, names[index]))
        kept = sorted(best, reverse=True)[:k]  # strongest first, as Katib lists them
        cell.append(tuple((name, state) for _, state, name in kept))
    return tuple(cell)


def _short(text: Any) -> str:
    shown = repr(text)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _literal(node: ast.expr, field: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise GenotypeError(f"{field}: {_short(ast.unparse(node))} is not a list of (operation, input) "
                            "pairs") from None


def _cell(node: ast.expr, field: str) -> Cell:
    value = _literal(node, field)
    if not isinstance(value, (list, tuple)):
        raise GenotypeError(f"{field}: expected a list of nodes, got {_short(value)}")
    if value and all(isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                     for item in value):
        if len(value) % 2:  # the DARTS paper's flat list: two edges per node
            raise GenotypeError(f"{field}: a flat list of edges needs two per node (got {len(value)})")
        value = [value[i:i + 2] for i in range(0, len(value), 2)]
    cell = []
    for index, edges in enumerate(value):
        if not isinstance(edges, (list, tuple)) or not all(
                isinstance(e, (list, tuple)) and len(e) == 2 and isinstance(e[0], str) and type(e[1]) is int
                for e in edges):
            raise GenotypeError(f"{field}[{index}]: expected a list of (operation, input) pairs, got "
                                f"{_short(edges)}")
        cell.append(tuple((canonical_name(op), state) for op, state in edges))
    return tuple(cell)


def _concat(node: ast.expr | None, nodes: int, field: str) -> tuple[int, ...]:
    if node is None:
        return tuple(range(2, 2 + nodes))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and not node.keywords and 1 <= len(node.args) <= 2):
        bounds = [_literal(arg, field) for arg in node.args]
        if all(type(b) is int for b in bounds):
            return tuple(range(*bounds))
    value = _literal(node, field)
    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
        return tuple(value)
    raise GenotypeError(f"{field}: expected range(a,b) or a list of states, got {_short(ast.unparse(node))}")


def _check_cell(cell: Cell, field: str) -> None:
    for index, node in enumerate(cell):
        if not node:
            raise GenotypeError(f"{field}[{index}]: a node needs at least one edge")
        for op, state in node:
            if op not in ALL_NAMES:
                raise GenotypeError(f"{field}[{index}]: unknown operation {op!r} "
                                    f"(known: {', '.join(ALL_NAMES)})")
            if not 0 <= state < index + 2:
                raise GenotypeError(f"{field}[{index}]: input {state} does not exist yet: node {index} reads "
                                    f"states 0 to {index + 1}")


def _check_concat(states: tuple[int, ...], nodes: int, field: str) -> None:
    if not states or any(not 0 <= s < nodes + 2 for s in states):
        raise GenotypeError(f"{field}: states {list(states)} are not among the cell's states "
                            f"0 to {nodes + 1}")


__all__ = ["SKIP", "Genotype", "GenotypeError", "derive"]
