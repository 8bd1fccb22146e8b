"""The operations of Katib's vocabulary as torch modules, and the mixed operation of a supernet edge.

Every operation keeps its channels; with ``stride`` 2 (the edges that leave a reduction cell's
inputs) it halves the image. Convolutions are ReLU, convolution, batch normalisation, as in DARTS:
a separable convolution is a depthwise and a pointwise convolution twice, a dilated one once with
dilation 2; pooling is followed by batch normalisation; a skip connection with stride 2 is a
factorised reduction. ``affine`` is False in a supernet (DARTS's choice: the architecture weights
scale each operation) and True in a network built from a genotype.

Example:
    >>> import torch
    >>> make("separable_convolution_3x3", 4, 2)(torch.zeros(1, 4, 8, 8)).shape
    torch.Size([1, 4, 4, 4])
"""

from __future__ import annotations

import torch
from torch import nn


class Zero(nn.Module):
    """The ``none`` operation: zeros of the output's shape."""

    def __init__(self, stride: int) -> None:
        super().__init__()
        self.stride = stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x if self.stride == 1 else x[:, :, ::self.stride, ::self.stride]).mul(0.0)


class ReluConvBn(nn.Sequential):
    """ReLU, a convolution, batch normalisation (the cells' preprocessing and the stem's shape)."""

    def __init__(self, c_in: int, c_out: int, kernel: int, stride: int, padding: int,
                 affine: bool = True) -> None:
        super().__init__(nn.ReLU(inplace=False),
                         nn.Conv2d(c_in, c_out, kernel, stride=stride, padding=padding, bias=False),
                         nn.BatchNorm2d(c_out, affine=affine))


class DilatedConv(nn.Sequential):
    """ReLU, a depthwise (dilated) convolution, a pointwise one, batch normalisation."""

    def __init__(self, channels: int, kernel: int, stride: int, dilation: int, affine: bool) -> None:
        padding = dilation * (kernel - 1) // 2
        super().__init__(nn.ReLU(inplace=False),
                         nn.Conv2d(channels, channels, kernel, stride=stride, padding=padding,
                                   dilation=dilation, groups=channels, bias=False),
                         nn.Conv2d(channels, channels, 1, bias=False),
                         nn.BatchNorm2d(channels, affine=affine))


class SeparableConv(nn.Sequential):
    """Two depthwise-separable convolutions, the first with the stride."""

    def __init__(self, channels: int, kernel: int, stride: int, affine: bool) -> None:
        super().__init__(DilatedConv(channels, kernel, stride, 1, affine),
                         DilatedConv(channels, kernel, 1, 1, affine))


class FactorizedReduce(nn.Module):
    """Halves the image with two 1x1 convolutions of stride 2, offset by one pixel, concatenated."""

    def __init__(self, c_in: int, c_out: int, affine: bool = True) -> None:
        super().__init__()
        self.relu = nn.ReLU(inplace=False)
        self.left = nn.Conv2d(c_in, c_out // 2, 1, stride=2, bias=False)
        self.right = nn.Conv2d(c_in, c_out - c_out // 2, 1, stride=2, bias=False)
        self.bn = nn.BatchNorm2d(c_out, affine=affine)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(x)
        shifted = nn.functional.pad(x[:, :, 1:, 1:], (0, 1, 0, 1))  # odd sides: same output size
        return self.bn(torch.cat([self.left(x), self.right(shifted)], dim=1))


class PoolBn(nn.Sequential):
    """Average or max pooling, then batch normalisation."""

    def __init__(self, kind: str, channels: int, kernel: int, stride: int, affine: bool) -> None:
        pool: nn.Module = (nn.AvgPool2d(kernel, stride, kernel // 2, count_include_pad=False) if kind == "avg"
                           else nn.MaxPool2d(kernel, stride, kernel // 2))
        super().__init__(pool, nn.BatchNorm2d(channels, affine=affine))


def make(name: str, channels: int, stride: int, affine: bool = True) -> nn.Module:
    """The module of operation ``name`` (Katib's name, e.g. ``dilated_convolution_5x5``)."""
    if name == "none":
        return Zero(stride)
    if name == "skip_connection":
        return nn.Identity() if stride == 1 else FactorizedReduce(channels, channels, affine)
    kind, _, size = name.rpartition("_")
    kernel = int(size.split("x")[0])
    if kind == "separable_convolution":
        return SeparableConv(channels, kernel, stride, affine)
    if kind == "dilated_convolution":
        return DilatedConv(channels, kernel, stride, 2, affine)
    if kind in ("avg_pooling", "max_pooling"):
        return PoolBn(kind[:3], channels, kernel, stride, affine)
    raise ValueError(f"unknown operation {name!r}")


class MixedOp(nn.Module):
    """A supernet edge: every operation, summed with the edge's architecture weights."""

    def __init__(self, names: tuple[str, ...], channels: int, stride: int) -> None:
        super().__init__()
        self.ops = nn.ModuleList(make(name, channels, stride, affine=False) for name in names)

    def forward(self, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        out = weights[0] * self.ops[0](x)
        for weight, op in zip(weights[1:], self.ops[1:]):
            out = out + weight * op(x)
        return out
