"""The probability that a point satisfies a search's constraints, for the GP strategy.

One Gaussian process (:mod:`.gp_model`) per constraint models the trial's violation of it
(at most 0: satisfied, see :mod:`hpnb.core.constraints`), on a signed logarithmic scale so that
a metric spanning orders of magnitude (a model size) stays within what a stationary kernel fits.
A trial that never reported the metric counts as a little worse than the worst violation seen.
The probability of feasibility is the product over constraints of ``P(violation <= 0)``, and the
acquisition is expected improvement times it (the constrained EI of Gardner et al., 2014):
``log EI + log PoF``.

Example:
    >>> import numpy as np
    >>> x = np.linspace(0.0, 1.0, 12)[:, None]
    >>> model = FeasibilityModel.fit(x, np.empty((12, 0), dtype=int), (x[:, 0] - 0.5)[:, None])
    >>> logs = model.log_probability(np.array([[0.1], [0.9]]), np.empty((2, 0), dtype=int))
    >>> bool(logs[0] > np.log(0.9)), bool(logs[1] < np.log(0.1))
    (True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from hpnb.core.constraints import MISSING_VIOLATION
from hpnb.core.strategies.gp_model import GaussianProcess, fit


def scaled(violations: np.ndarray) -> np.ndarray:
    """Each column of ``violations`` (n, k) on a signed log scale relative to its typical size;
    missing values (:data:`MISSING_VIOLATION`) one unit beyond the worst value seen."""
    out = np.empty_like(violations, dtype=float)
    for j in range(violations.shape[1]):
        column = violations[:, j]
        known = column < MISSING_VIOLATION
        size = float(np.median(np.abs(column[known]))) if known.any() else 1.0
        values = np.arcsinh(column / (size if size > 0 else 1.0))
        worst = float(values[known].max()) if known.any() else 0.0
        values[~known] = max(worst, 0.0) + 1.0
        out[:, j] = values
    return out


@dataclass
class FeasibilityModel:
    """A process per constraint, fitted on the trials' scaled violations."""

    models: Sequence[GaussianProcess]

    @classmethod
    def fit(cls, x: np.ndarray, c: np.ndarray, violations: np.ndarray) -> FeasibilityModel:
        values = scaled(np.asarray(violations, dtype=float))
        return cls([fit(x, c, values[:, j]) for j in range(values.shape[1])])

    def log_probability(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        """log P(every constraint satisfied) at each point."""
        total = np.zeros(len(x))
        for model in self.models:
            mean, sd = model.predict(x, c)
            total += log_ndtr(-mean / np.maximum(sd, 1e-12))
        return total
