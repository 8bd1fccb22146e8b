"""DARTS's bilevel optimisation: the architecture weights step on the validation loss, the network's
weights on the training loss.

First order takes the gradient of the validation loss at the current weights. Second order
(the paper's eq. 7-8) takes it at the weights after one virtual SGD step ``w' = w - lr * grad``
(with the optimiser's momentum and weight decay), minus ``lr`` times the second-order term, which
is approximated by the finite difference of the training loss's gradient at
``w +- eps * grad_w' L_val`` with ``eps = 0.01 / |grad_w' L_val|``. The weights are changed in place
and put back: no copy of the network is made.

Example:
    >>> import torch
    >>> from hpnb.nas.supernet import Supernet
    >>> net = Supernet(("max_pooling_3x3", "skip_connection"), in_channels=1, classes=2, channels=2,
    ...                layers=1, nodes=1, seed=0)
    >>> x, y = torch.randn(4, 1, 4, 4), torch.tensor([0, 1, 0, 1])
    >>> optimiser = torch.optim.SGD(net.weights(), lr=0.1, momentum=0.9)
    >>> architecture_gradient(net, (x, y), (x, y), lr=0.1, w_optim=optimiser, second_order=True)
    >>> bool(net.alpha_normal.grad.abs().sum() > 0)
    True
"""

from __future__ import annotations

import torch
from torch import nn

from hpnb.nas.supernet import Supernet

Batch = tuple[torch.Tensor, torch.Tensor]
#: how far the finite difference moves the weights (the paper's 0.01, divided by the gradient's norm).
EPSILON = 0.01


def loss(net: Supernet, batch: Batch) -> torch.Tensor:
    """The cross-entropy of the network on one batch."""
    return nn.functional.cross_entropy(net(batch[0]), batch[1])


def architecture_gradient(net: Supernet, train: Batch, valid: Batch, *, lr: float,
                          w_optim: torch.optim.Optimizer, second_order: bool) -> None:
    """Set the architecture weights' ``.grad`` to the validation loss's (first or second order)."""
    alphas = net.alphas()
    if not second_order:
        grads = torch.autograd.grad(loss(net, valid), alphas)
    else:
        grads = _unrolled(net, train, valid, alphas, lr, w_optim)
    for alpha, grad in zip(alphas, grads):
        alpha.grad = grad


def _unrolled(net: Supernet, train: Batch, valid: Batch, alphas: list[nn.Parameter], lr: float,
              w_optim: torch.optim.Optimizer) -> tuple[torch.Tensor, ...]:
    weights = list(net.weights())
    saved = [w.detach().clone() for w in weights]
    group = w_optim.param_groups[0]
    momentum, decay = group.get("momentum", 0.0), group.get("weight_decay", 0.0)
    train_grads = torch.autograd.grad(loss(net, train), weights, allow_unused=True)
    with torch.no_grad():
        for w, g in zip(weights, train_grads):
            buffer = w_optim.state.get(w, {}).get("momentum_buffer")
            step = (g if g is not None else torch.zeros_like(w)) + decay * w
            if buffer is not None:
                step = step + momentum * buffer
            w.sub_(lr * step)
    valid_grads = torch.autograd.grad(loss(net, valid), [*alphas, *weights], allow_unused=True)
    alpha_grads = valid_grads[:len(alphas)]
    dw = [g if g is not None else torch.zeros_like(w) for g, w in zip(valid_grads[len(alphas):], weights)]
    eps = EPSILON / torch.sqrt(torch.stack([(g * g).sum() for g in dw]).sum()).clamp_min(1e-12)
    hessian = _finite_difference(net, train, alphas, weights, saved, dw, eps)
    return tuple((a if a is not None else torch.zeros_like(alpha)) - lr * h
                 for a, h, alpha in zip(alpha_grads, hessian, alphas))


def _finite_difference(net: Supernet, train: Batch, alphas: list[nn.Parameter], weights: list[nn.Parameter],
                       saved: list[torch.Tensor], dw: list[torch.Tensor],
                       eps: torch.Tensor) -> list[torch.Tensor]:
    """``(grad_alpha L_train(w + eps dw) - grad_alpha L_train(w - eps dw)) / (2 eps)``; the weights
    are left as ``saved``."""
    gradients = []
    for sign in (1.0, -1.0):
        with torch.no_grad():
            for w, original, d in zip(weights, saved, dw):
                w.copy_(original).add_(sign * eps * d)
        gradients.append(torch.autograd.grad(loss(net, train), alphas))
    with torch.no_grad():
        for w, original in zip(weights, saved):
            w.copy_(original)
    return [(plus - minus) / (2 * eps) for plus, minus in zip(*gradients)]
