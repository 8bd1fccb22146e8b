"""Parzen (kernel) densities over encoded configurations, as BOHB fits them (Falkner et al., 2018).

Numeric coordinates live in the space's unit cube (see :mod:`.gp_encoding`) with a Gaussian kernel;
categorical ones are value indices ``0 .. k - 1`` with the Aitchison-Aitken
kernel (the point's own value with probability ``1 - bw``, the others sharing ``bw``). Bandwidths
follow the normal reference rule, ``1.06 * std * n ** (-1 / (4 + d))`` per coordinate, and are at
least ``min_bandwidth``; a categorical one at most ``(k - 1) / k``.

Example:
    >>> good = Parzen.fit(np.array([[0.2], [0.25], [0.3]]), np.zeros((3, 0), dtype=int), np.array([]))
    >>> bad = Parzen.fit(np.array([[0.7], [0.8], [0.9]]), np.zeros((3, 0), dtype=int), np.array([]))
    >>> x = np.array([[0.25], [0.8]])
    >>> c = np.zeros((2, 0), dtype=int)
    >>> (good.log_pdf(x, c) > bad.log_pdf(x, c)).tolist()
    [True, False]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import truncnorm

MIN_BANDWIDTH = 1e-3


@dataclass(frozen=True)
class Parzen:
    """A product-kernel density on ``n`` points: ``x`` (n, numeric), ``c`` (n, categorical)."""

    x: np.ndarray
    c: np.ndarray
    #: the number of values of each categorical coordinate, inactive included.
    sizes: np.ndarray
    bandwidth: np.ndarray
    cat_bandwidth: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray, c: np.ndarray, sizes: np.ndarray,
            min_bandwidth: float = MIN_BANDWIDTH) -> Parzen:
        """The density of the points ``x``, ``c``; ``sizes``: values per categorical coordinate."""
        n, dims = len(x), x.shape[1] + c.shape[1]
        factor = 1.06 * max(n, 1) ** (-1.0 / (4 + dims))
        bandwidth = np.maximum(factor * x.std(axis=0), min_bandwidth) if n else np.ones(x.shape[1])
        spread = factor * c.std(axis=0) if n else np.ones(c.shape[1])
        top = (sizes - 1) / np.maximum(sizes, 1)
        cat_bandwidth = np.clip(spread, min_bandwidth, np.maximum(top, min_bandwidth))
        return cls(x, c, np.asarray(sizes, dtype=int), bandwidth, cat_bandwidth)

    def log_pdf(self, qx: np.ndarray, qc: np.ndarray) -> np.ndarray:
        """The log density at each of ``m`` query points (``qx`` (m, numeric), ``qc`` (m, categorical))."""
        z = (qx[:, None, :] - self.x[None, :, :]) / self.bandwidth
        log_k = (-0.5 * z**2 - np.log(self.bandwidth * np.sqrt(2 * np.pi))).sum(axis=2)
        same = qc[:, None, :] == self.c[None, :, :]
        others = np.maximum(self.sizes - 1, 1)
        log_k = log_k + np.where(same, np.log1p(-self.cat_bandwidth),
                                 np.log(self.cat_bandwidth / others)).sum(axis=2)
        # the prior, uniform over the space, weighs as one point: it keeps regions where no point
        # lies from looking infinitely unlikely (as Optuna's TPE does)
        uniform = -np.log(np.maximum(self.sizes, 1)).sum() * np.ones((len(qx), 1))
        log_k = np.concatenate([log_k, uniform], axis=1)
        peak = log_k.max(axis=1, keepdims=True)
        return (peak + np.log(np.exp(log_k - peak).mean(axis=1, keepdims=True)))[:, 0]

    def sample(self, rng: np.random.Generator, count: int, widen: float = 1.0,
               min_bandwidth: float = MIN_BANDWIDTH) -> tuple[np.ndarray, np.ndarray]:
        """``count`` draws: around random points of the density, with bandwidths ``widen`` times as
        large (BOHB's ``bandwidth_factor``), numeric ones truncated to the unit interval."""
        rows = rng.integers(len(self.x), size=count)
        centre = self.x[rows]
        scale = np.maximum(self.bandwidth * widen, min_bandwidth)
        low, high = (0.0 - centre) / scale, (1.0 - centre) / scale
        qx = truncnorm.rvs(low, high, loc=centre, scale=scale, size=centre.shape, random_state=rng)
        qc = self.c[rows].copy()
        for j, size in enumerate(self.sizes):
            change = rng.random(count) < min(self.cat_bandwidth[j] * widen, 1.0)
            qc[change, j] = rng.integers(size, size=int(change.sum()))
        return np.asarray(qx, dtype=float).reshape(count, self.x.shape[1]), qc
