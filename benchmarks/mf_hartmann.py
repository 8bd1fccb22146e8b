"""The multi-fidelity Hartmann-6 function of Kandasamy et al. (2017), "Multi-fidelity Bayesian
optimisation with continuous approximations" (BOCA), section 5 and its appendix.

The Hartmann-6 function ``f(x) = sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)**2)`` on ``[0, 1]**6``
(to maximise; its maximum is 3.32237) gets a fidelity ``z`` in ``[0, 1]`` through its weights,
``alpha'(z) = alpha - 0.1 * (1 - z)``: ``z = 1`` is the function itself, a lower fidelity a
flattened approximation of it. Observations carry Gaussian noise of variance 0.01. Here the fidelity
is a trial's share of its epochs, ``z = epoch / max_epochs``, and the loss is ``-f`` (lower is better).

Example:
    >>> round(hartmann6(OPTIMUM, 1.0), 4), hartmann6(OPTIMUM, 0.0) < hartmann6(OPTIMUM, 1.0)
    (3.3224, True)
"""

from __future__ import annotations

import numpy as np

ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
A = np.array([[10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
              [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
              [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
              [17.0, 8.0, 0.05, 10.0, 0.1, 14.0]])
P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886],
                     [2329, 4135, 8307, 3736, 1004, 9991],
                     [2348, 1451, 3522, 2883, 3047, 6650],
                     [4047, 8828, 8732, 5743, 1091, 381]])
OPTIMUM = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
MAXIMUM = 3.32237
NOISE_SD = 0.1


def hartmann6(x: np.ndarray, z: float) -> float:
    """The noiseless value at ``x`` and fidelity ``z``."""
    weights = ALPHA - 0.1 * (1.0 - z)
    return float(weights @ np.exp(-(A * (np.asarray(x) - P) ** 2).sum(axis=1)))


def observed_loss(x: np.ndarray, z: float, rng: np.random.Generator) -> float:
    """One noisy observation at fidelity ``z``, as a loss (``-f`` plus noise)."""
    return -hartmann6(x, z) + NOISE_SD * float(rng.standard_normal())


def regret(x: np.ndarray) -> float:
    """How far ``x`` is below the maximum at full fidelity (noiseless)."""
    return MAXIMUM - hartmann6(x, 1.0)
