"""The network a genotype describes (:meth:`hpnb.nas.Genotype.build`): a stem, ``layers`` cells
whose nodes sum the genotype's two edges, global pooling and a linear classifier.

Example:
    >>> import torch
    >>> from hpnb.nas.genotype import Genotype
    >>> genotype = Genotype.random(["skip_connection", "max_pooling_3x3"], 2, seed=0)
    >>> net = GenotypeNetwork(genotype, in_channels=1, classes=3, channels=4, layers=2)
    >>> net(torch.zeros(1, 1, 8, 8)).shape
    torch.Size([1, 3])
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from hpnb.nas.layout import cell_plan
from hpnb.nas.operations import FactorizedReduce, ReluConvBn, make

#: a cell: for each node, its edges ``(operation, input state)``.
Cell = tuple[tuple[tuple[str, int], ...], ...]


def stem(in_channels: int, channels: int) -> nn.Sequential:
    """A 3x3 convolution and batch normalisation: the images as the first cells' inputs."""
    return nn.Sequential(nn.Conv2d(in_channels, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels))


def preprocess(c_prev_prev: int, c_prev: int, channels: int, reduction_prev: bool,
               affine: bool) -> tuple[nn.Module, nn.Module]:
    """The two modules that bring a cell's inputs to its channels (and the older one to the newer's
    size after a reduction cell)."""
    first = (FactorizedReduce(c_prev_prev, channels, affine) if reduction_prev
             else ReluConvBn(c_prev_prev, channels, 1, 1, 0, affine))
    return first, ReluConvBn(c_prev, channels, 1, 1, 0, affine)


class GenotypeCell(nn.Module):
    """One cell of a genotype: each node the sum of its edges' operations on earlier states."""

    def __init__(self, nodes: Cell, concat: tuple[int, ...], c_prev_prev: int, c_prev: int, channels: int,
                 reduction: bool, reduction_prev: bool) -> None:
        super().__init__()
        self.preprocess0, self.preprocess1 = preprocess(c_prev_prev, c_prev, channels, reduction_prev, True)
        self.inputs = [[state for _, state in node] for node in nodes]
        self.edges = nn.ModuleList(
            nn.ModuleList(make(op, channels, 2 if reduction and state < 2 else 1) for op, state in node)
            for node in nodes)
        self.concat = concat

    def forward(self, s0: torch.Tensor, s1: torch.Tensor) -> torch.Tensor:
        states = [self.preprocess0(s0), self.preprocess1(s1)]
        for inputs, ops in zip(self.inputs, self.edges):
            node: torch.Tensor | None = None
            for state, op in zip(inputs, ops):  # type: ignore[call-overload]
                out = op(states[state])
                node = out if node is None else node + out
            assert node is not None
            states.append(node)
        return torch.cat([states[i] for i in self.concat], dim=1)


class GenotypeNetwork(nn.Module):
    """A classifier of images stacked from a genotype's normal and reduction cells (any object with
    :class:`~hpnb.nas.genotype.Genotype`'s four fields)."""

    def __init__(self, genotype: Any, *, in_channels: int, classes: int, channels: int = 16,
                 layers: int = 8, stem_multiplier: int = 3) -> None:
        super().__init__()
        plan = cell_plan(layers, channels, stem_multiplier, 1)
        if any(reduction for *_, reduction, _ in plan) and not genotype.reduce:
            raise ValueError(f"a network of {layers} cells has reduction cells and the genotype has no "
                             "reduce cell: give layers=1, or a genotype with one")
        self.stem = stem(in_channels, channels * stem_multiplier)
        self.cells = nn.ModuleList()
        c_prev_prev = c_prev = channels * stem_multiplier
        for _, _, current, reduction, before in plan:
            nodes, concat = ((genotype.reduce, genotype.reduce_concat) if reduction
                             else (genotype.normal, genotype.normal_concat))
            self.cells.append(GenotypeCell(nodes, concat, c_prev_prev, c_prev, current, reduction, before))
            c_prev_prev, c_prev = c_prev, current * len(concat)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(c_prev, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s0 = s1 = self.stem(x)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1)
        return self.classifier(self.pool(s1).flatten(1))
