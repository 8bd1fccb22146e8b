"""Objectives with two goals, written as training code is (shipped to workers by value).

A "model" of width ``w`` in [0, 1]: the loss falls as it widens, the latency grows. Every
width is on the Pareto front of (loss, latency); ``depth`` only costs (the front has
``depth == 1``).
"""

from __future__ import annotations

import time

import numpy as np

import hpnb


class Scalar:
    """A one-value tensor, as torch hands them out (``.item()``)."""

    def __init__(self, value: float) -> None:
        self._value = value

    def item(self) -> float:
        return self._value


def goals(width: float, depth: int) -> tuple[float, float]:
    """(loss, latency in ms) of a model."""
    return 1.0 - width + 0.2 * (depth - 1), 10.0 * width + 3.0 * depth


def train(width: float, depth: int, steps: int = 4, pause: float = 0.0) -> dict[str, object]:
    """Reports the loss each step (numpy scalars), prints, returns both goals as numpy and torch-style
    scalars."""
    loss, latency = goals(width, depth)
    for step in range(steps):
        print(f"step {step}: width {width:.3f}")
        hpnb.report(step=step, val_loss=np.float32(loss + 1.0 / (step + 1)))
        time.sleep(pause)
    return {"val_loss": np.float64(loss), "latency_ms": Scalar(latency)}


def as_tuple(width: float, depth: int) -> tuple[float, float]:
    """Returns (val_loss, latency_ms) as a plain tuple, in the order of the spec's metrics."""
    return goals(width, depth)


def three_values(width: float, depth: int) -> tuple[float, float, float]:
    return (*goals(width, depth), 0.0)
