"""An objective over an optimizer choice with per-optimizer parameters (shipped to workers by value)."""

from __future__ import annotations

import time

import hpnb

#: the default of a parameter the trial was not given.
NOT_GIVEN = "not given"
#: the parameters each optimizer's trials must get, and only those.
EXPECTED = {"sgd": {"momentum", "nesterov"}, "adam": {"beta"}, "rmsprop": {"beta"}}


def train(optimizer: str, lr: float, momentum: float | str = NOT_GIVEN, nesterov: bool | str = NOT_GIVEN,
          beta: float | str = NOT_GIVEN, steps: int = 3, pause: float = 0.0) -> dict[str, float]:
    """Fails (a failed trial, with the reason) unless it got exactly its optimizer's parameters."""
    given = {name for name, value in (("momentum", momentum), ("nesterov", nesterov), ("beta", beta))
             if value != NOT_GIVEN}
    if given != EXPECTED[optimizer]:
        raise ValueError(f"{optimizer} got {sorted(given)}, expected {sorted(EXPECTED[optimizer])}")
    loss = (lr - 0.01) ** 2 + (abs(float(momentum) - 0.9) if optimizer == "sgd" else 0.5)
    for step in range(steps):
        hpnb.report(step=step, loss=loss + 1.0 / (step + 1))
        time.sleep(pause)
    return {"loss": loss}
