"""Objectives of the tracking tests (shipped to the workers by value)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import hpnb


def curve(lr: float, steps: int = 5, fail_above: float = 2.0, **_: object) -> dict[str, float]:
    """A loss that falls with the steps; above ``fail_above`` the trial fails after reporting."""
    loss = 0.0
    for step in range(steps):
        loss = (lr - 0.3) ** 2 + 1.0 / (step + 1)
        hpnb.report(step=step, loss=loss, **{"acc@1": 1.0 - loss})
    if lr > fail_above:
        raise ValueError(f"lr {lr} is too high")
    notes = Path(tempfile.mkdtemp()) / "notes.txt"
    notes.write_text(f"lr={lr}\n")
    hpnb.artifact(notes)
    return {"loss": loss}


def two_goals(lr: float, steps: int = 3) -> dict[str, float]:
    """Two objectives that pull apart: the front is every trial."""
    for step in range(steps):
        hpnb.report(step=step, loss=lr + 1.0 / (step + 1), cost=1.0 - lr)
    return {"loss": lr + 1.0 / steps, "cost": 1.0 - lr}
