"""One supernet epoch of DARTS (an architecture step, then a weights step, per batch), and the
accuracy of a network on a data set.

Example:
    >>> import torch
    >>> from hpnb.nas.supernet import Supernet
    >>> net = Supernet(("max_pooling_3x3", "skip_connection"), in_channels=1, classes=2, channels=2,
    ...                layers=1, nodes=1, seed=0)
    >>> x, y = torch.randn(8, 1, 4, 4), torch.tensor([0, 1] * 4)
    >>> accuracy, loss = evaluate(net, x, y, 4)
    >>> 0.0 <= accuracy <= 1.0
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch import nn

from hpnb.nas.bilevel import Batch, architecture_gradient
from hpnb.nas.supernet import Supernet


@dataclass
class Optimisers:
    """The weights' SGD, its cosine schedule and the architecture weights' Adam (DARTS's choices)."""

    weights: torch.optim.SGD
    schedule: torch.optim.lr_scheduler.CosineAnnealingLR
    alphas: torch.optim.Adam

    @classmethod
    def of(cls, net: Supernet, settings: dict) -> Optimisers:
        weights = torch.optim.SGD(net.weights(), settings["w_lr"], momentum=settings["w_momentum"],
                                  weight_decay=settings["w_weight_decay"])
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(weights, settings["num_epochs"],
                                                              eta_min=settings["w_lr_min"])
        alphas = torch.optim.Adam(net.alphas(), settings["alpha_lr"], betas=(0.5, 0.999),
                                  weight_decay=settings["alpha_weight_decay"])
        return cls(weights, schedule, alphas)

    def state_dict(self) -> dict:
        return {"weights": self.weights.state_dict(), "schedule": self.schedule.state_dict(),
                "alphas": self.alphas.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        self.weights.load_state_dict(state["weights"])
        self.schedule.load_state_dict(state["schedule"])
        self.alphas.load_state_dict(state["alphas"])


def search_epoch(net: Supernet, train: Iterator[Batch], valid: Iterator[Batch], optimisers: Optimisers,
                 settings: dict) -> tuple[float, float]:
    """Train the supernet one epoch of ``train`` (each batch paired with the next of ``valid``);
    the training accuracy and loss."""
    net.train()
    lr = float(optimisers.schedule.get_last_lr()[0])
    weights = list(net.weights())
    correct = seen = 0
    total = 0.0
    for batch in train:
        optimisers.alphas.zero_grad()
        architecture_gradient(net, batch, next(valid), lr=lr, w_optim=optimisers.weights,
                              second_order=settings["order"] == "second")
        optimisers.alphas.step()
        optimisers.weights.zero_grad()
        logits = net(batch[0])
        loss = nn.functional.cross_entropy(logits, batch[1])
        loss.backward()
        nn.utils.clip_grad_norm_(weights, settings["w_grad_clip"])
        optimisers.weights.step()
        correct += int((logits.argmax(1) == batch[1]).sum())
        seen += len(batch[1])
        total += float(loss.detach()) * len(batch[1])
    optimisers.schedule.step()
    return correct / max(seen, 1), total / max(seen, 1)


def evaluate(net: nn.Module, x: torch.Tensor, y: torch.Tensor, batch_size: int) -> tuple[float, float]:
    """The accuracy and mean cross-entropy of ``net`` (in evaluation mode) on ``x``, ``y``."""
    net.eval()
    correct, total = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(x), batch_size):
            logits = net(x[start:start + batch_size])
            target = y[start:start + batch_size]
            correct += int((logits.argmax(1) == target).sum())
            total += float(nn.functional.cross_entropy(logits, target, reduction="sum"))
    return correct / len(x), total / len(x)
