"""Objectives that checkpoint every step and resume from their checkpoint, for the tests of pausing
(shipped to the workers by value: register this module with ``cloudpickle.register_pickle_by_value``)."""

from __future__ import annotations

import time

import hpnb


def counted_steps(x: float, steps: int = 30, pause: float = 0.1) -> dict[str, float]:
    """Reports ``loss = x / step`` at steps 1 to ``steps``, ``pause`` seconds apart, with a
    checkpoint each; from a checkpoint it goes on after its step and says where it started."""
    state = hpnb.load_checkpoint() or {"step": 0}
    start = state["step"] + 1
    for step in range(start, steps + 1):
        time.sleep(pause)
        hpnb.report(step=step, loss=x / step, started_at=start, checkpoint={"step": step})
    return {"loss": x / steps}


def checkpointed_curve(rate: float, steps: int = 9, pause: float = 0.01) -> dict[str, float]:
    """A loss decaying towards ``1 - rate`` (better rates are better at every step), checkpointed
    every step; from a checkpoint it goes on after its step and says where it started."""
    state = hpnb.load_checkpoint() or {"step": 0}
    start = state["step"] + 1
    loss = 1.0
    for step in range(start, steps + 1):
        loss = (1 - rate) + rate * 0.9**step
        hpnb.report(step=step, loss=loss, started_at=start, checkpoint={"step": step})
        time.sleep(pause)
    return {"loss": loss}


def marked_steps(x: float, marker_dir: str, steps: int = 8, pause: float = 0.3) -> dict[str, float]:
    """:func:`counted_steps` that also writes, for each step it runs, ``STEP TIME`` to a file of its
    own in ``marker_dir``: what ran is seen even where no driver stored it."""
    from pathlib import Path

    state = hpnb.load_checkpoint() or {"step": 0}
    start = state["step"] + 1
    for step in range(start, steps + 1):
        time.sleep(pause)
        with open(Path(marker_dir) / f"{x!r}.steps", "a", encoding="utf-8") as marks:
            marks.write(f"{step} {time.time()}\n")
        hpnb.report(step=step, loss=x / step, started_at=start, checkpoint={"step": step})
    return {"loss": x / steps}
