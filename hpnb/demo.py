"""The objective and spec of ``hpnb demo``: a small neural network trained with numpy (the
command's side of the same demo is :mod:`hpnb.cli.demo`).

A one-hidden-layer network learns two interleaved half-moons (generated, no
download) by mini-batch gradient descent; every epoch it reports its
validation loss and accuracy through :func:`hpnb.report`.

Example:
    >>> metrics = train_moons(lr=0.1, hidden=8, l2=1e-4, batch=32, epochs=2)
    >>> sorted(metrics)
    ['val_accuracy', 'val_loss']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import hpnb

DEMO_SPEC = """\
metric: val_loss
mode: min
strategy: tpe
trials: 40
seed: 0
parameters:
  lr:     {distribution: logUniform, min: 1.0e-3, max: 1.0}
  hidden: {type: int, min: 2, max: 32}
  l2:     {distribution: logUniform, min: 1.0e-6, max: 1.0e-1}
  batch:  [16, 32, 64]
  epochs: 40
early_stopping: {rule: asha, grace: 4, reduction: 3, max_t: 40}
resources: {workers: 2}
"""


def make_moons(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles with Gaussian noise: points ``(n, 2)`` and labels ``(n,)``."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(0, np.pi, n)
    labels = rng.integers(0, 2, n)
    x = np.where(labels == 0, np.cos(angles), 1 - np.cos(angles))
    y = np.where(labels == 0, np.sin(angles), 0.5 - np.sin(angles))
    points = np.column_stack([x, y]) + rng.normal(0, noise, (n, 2))
    return points, labels.astype(float)


def _forward(params: dict[str, np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    logits = hidden @ params["w2"] + params["b2"]
    return hidden, 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))


def _loss(prob: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(prob, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _step(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, lr: float, l2: float) -> None:
    hidden, prob = _forward(params, x)
    d_logits = (prob - y) / len(y)
    d_hidden = np.outer(d_logits, params["w2"]) * (1 - hidden**2)
    grads = {"w2": hidden.T @ d_logits + l2 * params["w2"], "b2": d_logits.sum(),
             "w1": x.T @ d_hidden + l2 * params["w1"], "b1": d_hidden.sum(axis=0)}
    for key, grad in grads.items():
        params[key] = params[key] - lr * grad


def train_moons(lr: float, hidden: int, l2: float, batch: int, epochs: int, seed: int = 0) -> dict[str, Any]:
    """Train the network; report validation metrics every epoch; return the last ones."""
    x, y = make_moons(3000, noise=0.25, seed=seed)
    x_train, y_train, x_val, y_val = x[:2400], y[:2400], x[2400:], y[2400:]
    rng = np.random.default_rng(seed + 1)
    params = {"w1": rng.normal(0, 1, (2, hidden)), "b1": np.zeros(hidden),
              "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden), "b2": np.zeros(())}
    metrics: dict[str, Any] = {}
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            _step(params, x_train[rows], y_train[rows], lr, l2)
        _, prob = _forward(params, x_val)
        metrics = {"val_loss": _loss(prob, y_val), "val_accuracy": float(np.mean((prob > 0.5) == y_val))}
        hpnb.report(step=epoch, **metrics)
    return metrics
