"""The ``dehb`` package (Awad et al., 2021) on the multi-fidelity Hartmann-6 task of
``multi_fidelity.py``: its ask/tell interface in the same loop of 4 slots, for its report.

``dehb`` pins numpy 1.26, so it runs in an environment of its own; ``multi_fidelity.py
--dehb-python PATH`` runs this script with that environment's Python and reads the traces it
prints (JSON). Each job DEHB asks for trains a new configuration, or one it promotes, from scratch
to its fidelity (1, 3, 9 or 27 epochs: ``min_fidelity 1, max_fidelity 27, eta 3``), as the
package's own examples do, and costs that many epochs; its loss is one noisy observation at
fidelity ``epochs / 27``. As for hpnb's contenders, the configuration chosen after ``n`` epochs is
the best of the jobs that ran to 27 epochs, and its quality the noiseless regret.

Usage (in an environment with ``pip install dehb==0.1.2``):
    python benchmarks/dehb_package.py --seeds 10 --epochs 8100 > dehb_traces.json
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
import tempfile
from typing import Any

import numpy as np
from mf_hartmann import observed_loss, regret

MAX_T, MIN_T, REDUCTION, SLOTS = 27, 1, 3, 4


def run(seed: int, epochs: int, output: str) -> list[tuple[int, float]]:
    """One search: (epochs spent so far, regret of the chosen configuration) after each job that
    ran to 27 epochs and beat the best so far."""
    from dehb import DEHB

    optimiser = DEHB(f=None, dimensions=6, configspace=False, min_fidelity=MIN_T, max_fidelity=MAX_T,
                     eta=REDUCTION, n_workers=1, seed=seed, output_path=output, log_level="ERROR")
    rng = np.random.default_rng([seed, 7])
    running: list[tuple[int, int, dict[str, Any]]] = []  # (epoch at which it ends, order, job)
    clock, spent, order, best, trace = 0, 0, 0, math.inf, []
    while spent < epochs:
        while len(running) < SLOTS:
            job = optimiser.ask()
            heapq.heappush(running, (clock + round(float(job["fidelity"])), order, job))
            order += 1
        end, _, job = heapq.heappop(running)
        # every slot trains for the epochs that pass: the spent epochs grow by the slots busy
        spent += (end - clock) * (len(running) + 1)
        clock = end
        fidelity = round(float(job["fidelity"]))
        x = np.clip(np.asarray(job["config"], dtype=float), 0.0, 1.0)
        loss = observed_loss(x, fidelity / MAX_T, rng)
        optimiser.tell(job, {"fitness": loss, "cost": fidelity})
        if fidelity >= MAX_T and loss < best:
            best = loss
            trace.append((spent, regret(x)))
    return trace


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=MAX_T * 300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as output:
        traces = [run(seed, args.epochs, output) for seed in range(args.seeds)]
    json.dump(traces, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
