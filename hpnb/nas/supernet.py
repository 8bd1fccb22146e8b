"""DARTS's supernet: every edge of a cell a mixed operation over the search's operations, weighted
by the softmax of the architecture weights (alphas) the normal cells share, and the reduction
cells theirs.

Example:
    >>> import torch
    >>> net = Supernet(("max_pooling_3x3", "skip_connection", "none"), in_channels=1, classes=3,
    ...                channels=4, layers=3, nodes=2)
    >>> net(torch.zeros(2, 1, 8, 8)).shape, [tuple(a.shape) for a in net.alphas()]
    (torch.Size([2, 3]), [(5, 3), (5, 3)])
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch import nn

from hpnb.nas.genotype import Genotype, derive
from hpnb.nas.layout import cell_plan
from hpnb.nas.network import preprocess, stem
from hpnb.nas.operations import MixedOp


class SearchCell(nn.Module):
    """A cell whose node ``i`` sums a mixed operation on each of the ``i + 2`` earlier states."""

    def __init__(self, names: tuple[str, ...], nodes: int, c_prev_prev: int, c_prev: int, channels: int,
                 reduction: bool, reduction_prev: bool) -> None:
        super().__init__()
        self.reduction = reduction
        self.preprocess0, self.preprocess1 = preprocess(c_prev_prev, c_prev, channels, reduction_prev, False)
        self.edges = nn.ModuleList(MixedOp(names, channels, 2 if reduction and state < 2 else 1)
                                   for node in range(nodes) for state in range(node + 2))
        self.nodes = nodes

    def forward(self, s0: torch.Tensor, s1: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        states = [self.preprocess0(s0), self.preprocess1(s1)]
        offset = 0
        for _ in range(self.nodes):
            node = self.edges[offset](states[0], weights[offset])
            for state in range(1, len(states)):
                node = node + self.edges[offset + state](states[state], weights[offset + state])
            offset += len(states)
            states.append(node)
        return torch.cat(states[2:], dim=1)


class Supernet(nn.Module):
    """The supernet of a search: ``layers`` search cells of ``nodes`` nodes each.

    The architecture weights are two tensors of one row per edge (``nodes * (nodes + 3) / 2``
    edges) and one column per operation, the normal cells' and the reduction cells' (a network
    without reduction cells has only the first).
    """

    def __init__(self, names: tuple[str, ...], *, in_channels: int, classes: int, channels: int, layers: int,
                 nodes: int, stem_multiplier: int = 3, seed: int | None = None) -> None:
        super().__init__()
        self.names, self.nodes = tuple(names), nodes
        plan = cell_plan(layers, channels, stem_multiplier, nodes)
        self.stem = stem(in_channels, channels * stem_multiplier)
        self.cells = nn.ModuleList(SearchCell(self.names, nodes, *step) for step in plan)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(plan[-1][2] * nodes, classes)
        edges = nodes * (nodes + 3) // 2
        generator = torch.Generator().manual_seed(seed) if seed is not None else None
        self.alpha_normal = nn.Parameter(1e-3 * torch.randn(edges, len(names), generator=generator))
        has_reduction = any(step[3] for step in plan)
        self.alpha_reduce = (nn.Parameter(1e-3 * torch.randn(edges, len(names), generator=generator))
                             if has_reduction else None)

    def alphas(self) -> list[nn.Parameter]:
        """The architecture weights."""
        return [a for a in (self.alpha_normal, self.alpha_reduce) if a is not None]

    def weights(self) -> Iterator[nn.Parameter]:
        """The network's own weights (every parameter but the architecture weights)."""
        return (p for name, p in self.named_parameters() if not name.startswith("alpha_"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normal = torch.softmax(self.alpha_normal, dim=-1)
        reduce = torch.softmax(self.alpha_reduce, dim=-1) if self.alpha_reduce is not None else None
        s0 = s1 = self.stem(x)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1, reduce if cell.reduction else normal)
        return self.classifier(self.pool(s1).flatten(1))

    def edge_weights(self) -> dict[str, list[list[list[float]]]]:
        """The softmax of the architecture weights: per cell kind, per node, per input edge, per
        operation (plain floats)."""
        out = {}
        for kind, alpha in (("normal", self.alpha_normal), ("reduce", self.alpha_reduce)):
            if alpha is None:
                continue
            rows = torch.softmax(alpha.detach(), dim=-1).tolist()
            nodes, start = [], 0
            for node in range(self.nodes):
                nodes.append(rows[start:start + node + 2])
                start += node + 2
            out[kind] = nodes
        return out

    def genotype(self) -> Genotype:
        """The genotype the architecture weights stand for now (Katib's and DARTS's derivation)."""
        weights = self.edge_weights()
        concat = tuple(range(2, 2 + self.nodes))
        reduce = derive(weights["reduce"], self.names) if "reduce" in weights else ()
        return Genotype(derive(weights["normal"], self.names), concat, reduce, concat)
