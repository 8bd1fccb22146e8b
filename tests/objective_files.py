"""Objectives as users write them in a file of their own (``hpnb run ... --objective train.py:train``)."""

from __future__ import annotations

import textwrap


def checkpointed_train(steps: int, pause: float = 0.3) -> str:
    """``train.py`` whose ``train(x)`` reports ``x / step`` at steps 1 to ``steps`` with a checkpoint
    each, and goes on from its latest one (a trial cut by a driver's or a worker's death)."""
    return textwrap.dedent(f"""\
        import time
        import hpnb

        def train(x):
            state = hpnb.load_checkpoint() or {{"step": 0}}
            for step in range(state["step"] + 1, {steps + 1}):
                time.sleep({pause})
                hpnb.report(step=step, loss=x / step, checkpoint={{"step": step}})
            return {{"loss": x / {steps}}}
        """)
