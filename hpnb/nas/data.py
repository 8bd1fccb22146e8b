"""The training and validation data of an architecture search, from the function the user names.

The function returns ``(train, valid)``; each is ``(images, labels)`` (numpy arrays or tensors;
images ``N x C x H x W``, or ``N x H x W`` for one channel) or a torch ``Dataset`` of
``(image, label)`` items. Both are held in memory as tensors; channels and classes are read from
them. The supernet's weights learn on ``train``, its architecture weights on ``valid`` (DARTS's
two halves of the training set): keep a test set apart to judge the retrained genotypes.

Example:
    >>> import numpy as np
    >>> images, labels = np.zeros((6, 8, 8), "float32"), np.array([0, 1, 2, 0, 1, 2])
    >>> data = SearchData.load(lambda: ((images, labels), (images, labels)))
    >>> data.channels, data.classes, data.side
    (1, 3, 8)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class SearchData:
    """Training and validation images and labels as tensors, with what the network needs to know."""

    train_x: torch.Tensor
    train_y: torch.Tensor
    valid_x: torch.Tensor
    valid_y: torch.Tensor

    @classmethod
    def load(cls, function: Callable[[], Any]) -> SearchData:
        """Call ``function`` and read its ``(train, valid)``; a ValueError says what is wrong."""
        returned = function()
        if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
            raise ValueError(f"the data function {_name(function)} must return (train, valid): got a "
                             f"{type(returned).__name__}")
        train_x, train_y = _tensors(returned[0], "train")
        valid_x, valid_y = _tensors(returned[1], "valid")
        if train_x.shape[1:] != valid_x.shape[1:]:
            raise ValueError(f"train images are {tuple(train_x.shape[1:])}, valid images "
                             f"{tuple(valid_x.shape[1:])}: give both the same shape")
        return cls(train_x, train_y, valid_x, valid_y)

    @property
    def channels(self) -> int:
        return int(self.train_x.shape[1])

    @property
    def side(self) -> int:
        """The images' smaller side."""
        return int(min(self.train_x.shape[2:]))

    @property
    def classes(self) -> int:
        return int(max(self.train_y.max(), self.valid_y.max())) + 1


def _name(function: Callable[[], Any]) -> str:
    return getattr(function, "__name__", repr(function))


def _tensors(part: Any, which: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Images (float, N x C x H x W) and labels (int64) of one part."""
    if isinstance(part, torch.utils.data.Dataset) and not isinstance(part, (tuple, list)):
        items = [part[i] for i in range(len(part))]  # type: ignore[arg-type]
        images = torch.stack([torch.as_tensor(x) for x, _ in items])
        labels = torch.as_tensor([int(y) for _, y in items])
    elif isinstance(part, (tuple, list)) and len(part) == 2:
        images, labels = torch.as_tensor(part[0]), torch.as_tensor(part[1])
    else:
        raise ValueError(f"{which} must be (images, labels) or a torch Dataset of (image, label): got a "
                         f"{type(part).__name__}")
    if images.dim() == 3:
        images = images.unsqueeze(1)
    if images.dim() != 4:
        raise ValueError(f"{which} images must be N x C x H x W (or N x H x W): got shape "
                         f"{tuple(images.shape)}")
    labels = labels.reshape(-1).long()
    if len(labels) != len(images) or not len(labels):
        raise ValueError(f"{which} has {len(images)} images and {len(labels)} labels")
    if int(labels.min()) < 0:
        raise ValueError(f"{which} labels must be class numbers from 0")
    return images.float(), labels


def batches(x: torch.Tensor, y: torch.Tensor, size: int, generator: torch.Generator,
            ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """One epoch of shuffled batches (the last one smaller; not one of a single image, which batch
    normalisation cannot train on)."""
    order = torch.randperm(len(x), generator=generator)
    for start in range(0, len(x), size):
        index = order[start:start + size]
        if len(index) > 1 or len(x) == 1:
            yield x[index], y[index]


def endless(x: torch.Tensor, y: torch.Tensor, size: int, generator: torch.Generator,
            ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Shuffled batches, epoch after epoch (the validation batches the training ones pair with)."""
    while True:
        yield from batches(x, y, size, generator)
