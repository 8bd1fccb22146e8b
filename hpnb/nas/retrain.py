"""Training a genotype's network from scratch: the second half of an architecture search.

The recipe (``docs/nas.md``): a first search of DARTS trials finds genotypes
(:func:`hpnb.nas.genotypes`); a second, ordinary search retrains the best of them as trials,
with a function that calls :func:`train_genotype` (the genotype a categorical parameter).

Example:
    >>> import numpy as np
    >>> from hpnb.nas.genotype import Genotype
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(size=(16, 1, 4, 4)).astype("float32"), rng.integers(0, 2, 16)
    >>> genotype = Genotype.random(["max_pooling_3x3", "skip_connection"], 1, seed=0)
    >>> metrics = train_genotype(genotype, (x, y), (x, y), epochs=1, channels=2, layers=1, batch_size=8)
    >>> sorted(metrics)
    ['Validation-Accuracy', 'Validation-Loss', 'parameters']
"""

from __future__ import annotations

from typing import Any

from hpnb.nas.genotype import Genotype
from hpnb.runner.worker.reporting import load_checkpoint, report


def train_genotype(genotype: Genotype | str, train: Any, valid: Any, *, epochs: int = 10, channels: int = 8,
                   layers: int = 3, lr: float = 0.025, momentum: float = 0.9, weight_decay: float = 3e-4,
                   grad_clip: float = 5.0, batch_size: int = 64, seed: int = 0) -> dict[str, float]:
    """Train the network of ``genotype`` on ``train`` and report its validation accuracy each epoch.

    Args:
        genotype: a :class:`Genotype` or Katib's text of one.
        train, valid: ``(images, labels)`` (arrays or tensors) or torch Datasets, as a ``nas:``
            search's data function returns them.
        epochs, lr, momentum, weight_decay, grad_clip, batch_size: SGD with a cosine schedule.
        channels, layers: the network's size (:meth:`Genotype.build`).

    Returns:
        The last epoch's ``Validation-Accuracy`` and ``Validation-Loss``, and ``parameters``: the
        network's size. In a search each epoch is reported (with a checkpoint to resume from).
    """
    import torch
    from torch import nn

    from hpnb.nas.data import SearchData, batches
    from hpnb.nas.training import evaluate

    if isinstance(genotype, str):
        genotype = Genotype.parse(genotype)
    data = SearchData.load(lambda: (train, valid))
    torch.manual_seed(seed)
    net = genotype.build(in_channels=data.channels, classes=data.classes, channels=channels, layers=layers)
    optimiser = torch.optim.SGD(net.parameters(), lr, momentum=momentum, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, epochs)
    order = torch.Generator().manual_seed(seed)
    start, metrics = 0, {}
    state = load_checkpoint()
    if state is not None:
        net.load_state_dict(state["net"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        order.set_state(state["order"])
        start = state["epoch"]
    size = sum(p.numel() for p in net.parameters())
    for epoch in range(start + 1, epochs + 1):
        net.train()
        for x, y in batches(data.train_x, data.train_y, batch_size, order):
            optimiser.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            nn.utils.clip_grad_norm_(net.parameters(), grad_clip)
            optimiser.step()
        schedule.step()
        accuracy, loss = evaluate(net, data.valid_x, data.valid_y, batch_size)
        metrics = {"Validation-Accuracy": accuracy, "Validation-Loss": loss, "parameters": size}
        checkpoint = {"epoch": epoch, "net": net.state_dict(), "optimiser": optimiser.state_dict(),
                      "schedule": schedule.state_dict(), "order": order.get_state()}
        report(step=epoch, checkpoint=checkpoint, **metrics)
    return metrics


def parameter_count(genotype: Genotype | str, *, in_channels: int, classes: int, channels: int = 8,
                    layers: int = 3) -> int:
    """How many weights the network of ``genotype`` has (to match random genotypes' sizes).

    Example:
        >>> g = Genotype.random(["skip_connection"], 2, seed=0)
        >>> parameter_count(g, in_channels=1, classes=10, channels=4, layers=1) > 0
        True
    """
    if isinstance(genotype, str):
        genotype = Genotype.parse(genotype)
    net = genotype.build(in_channels=in_channels, classes=classes, channels=channels, layers=layers)
    return sum(p.numel() for p in net.parameters())
