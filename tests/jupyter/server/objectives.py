"""Objectives the route and browser tests run on real Dask workers (shipped by value)."""

from __future__ import annotations

import math
import time

import hpnb


def slow_curve(lr: float, layers: int, steps: int = 600, pause: float = 0.1) -> dict[str, float]:
    """A loss curve reported every ``pause`` seconds; long enough to be stopped from the page."""
    loss = 1.0
    for step in range(steps):
        loss = (math.log10(lr) + 2.5) ** 2 / 4 + 0.05 * layers + 1.0 / (step + 1)
        hpnb.report(step=step, val_loss=loss)
        time.sleep(pause)  # the trial's work
    return {"val_loss": loss}
