"""A Gaussian process for mixed spaces, on numpy and scipy only.

Points have numeric coordinates in [0, 1] (continuous, integer and stepped parameters as the space
maps them to its unit cube) and categorical ones (a choice's index; -1 where the parameter is
inactive). The kernel is a product: a Matern 5/2 kernel with one length scale per numeric
coordinate, times ``exp(-sum_c [x_c != x'_c] / l_c)`` over the categorical ones (a Hamming kernel
with one length scale per parameter), times a signal variance; a fitted noise variance is added on
the diagonal. Hyperparameters maximise the marginal likelihood with weak log-normal priors
(L-BFGS-B, analytic gradients) on standardised observations.

Example:
    >>> import numpy as np
    >>> x = np.linspace(0.0, 1.0, 12)[:, None]
    >>> gp = fit(x, np.empty((12, 0), dtype=int), np.sin(6.0 * x[:, 0]))
    >>> mean, sd = gp.predict(np.array([[0.25]]), np.empty((1, 0), dtype=int))
    >>> bool(abs(mean[0] - np.sin(1.5)) < 0.1), bool(sd[0] < 0.2)
    (True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.optimize import minimize

SQRT5 = math.sqrt(5.0)
#: bounds of the log hyperparameters: length scales, signal variance, noise variance.
LOG_LENGTH = (math.log(0.01), math.log(100.0))
LOG_SIGNAL = (math.log(0.05), math.log(20.0))
LOG_NOISE = (math.log(1e-6), math.log(2.0))
#: means and widths of the log-normal priors (standardised observations).
PRIOR_LENGTH, PRIOR_NOISE, PRIOR_WIDTH = math.log(0.5), math.log(1e-2), 1.5
#: the noise prior's mean for a search said to be noisy (``noise: true``): a tenth of the variance.
NOISY_PRIOR = math.log(0.1)
JITTER = 1e-8


@dataclass
class Hyper:
    """Log length scales (numeric, then categorical), log signal and log noise variance."""

    log_lengths: np.ndarray
    log_signal: float = 0.0
    log_noise: float = math.log(1e-2)

    def vector(self) -> np.ndarray:
        return np.concatenate([self.log_lengths, [self.log_signal, self.log_noise]])

    @classmethod
    def of(cls, theta: np.ndarray) -> Hyper:
        return cls(np.asarray(theta[:-2], dtype=float), float(theta[-2]), float(theta[-1]))

    @classmethod
    def initial(cls, numeric: int, categorical: int) -> Hyper:
        return cls(np.full(numeric + categorical, PRIOR_LENGTH))


def _squared_gaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m, d): squared differences of every numeric coordinate."""
    return (a[:, None, :] - b[None, :, :]) ** 2


def _mismatches(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m, k): 1.0 where a categorical coordinate differs."""
    return (a[:, None, :] != b[None, :, :]).astype(float)


def correlation(xa: np.ndarray, ca: np.ndarray, xb: np.ndarray, cb: np.ndarray,
                hyper: Hyper) -> np.ndarray:
    """The kernel between two sets of points, without the signal variance."""
    d = xa.shape[1]
    lengths = np.exp(hyper.log_lengths)
    r = np.sqrt(np.maximum(_squared_gaps(xa, xb) @ (1.0 / lengths[:d] ** 2), 0.0))
    matern = (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * np.exp(-SQRT5 * r)
    return matern * np.exp(-(_mismatches(ca, cb) @ (1.0 / lengths[d:])))


def _objective(theta: np.ndarray, gaps: np.ndarray, mism: np.ndarray, y: np.ndarray,
               noise_prior: float = PRIOR_NOISE) -> tuple[float, np.ndarray]:
    """The negative log marginal likelihood plus priors, and its gradient in ``theta``."""
    hyper = Hyper.of(theta)
    d, n = gaps.shape[2], y.shape[0]
    lengths = np.exp(hyper.log_lengths)
    scaled = gaps / lengths[:d] ** 2
    r = np.sqrt(np.maximum(scaled.sum(axis=2), 0.0))
    decay = np.exp(-SQRT5 * r)
    matern = (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * decay
    hamming = np.exp(-(mism / lengths[d:]).sum(axis=2))
    signal, noise = math.exp(hyper.log_signal), math.exp(hyper.log_noise)
    k_signal = signal * matern * hamming
    try:
        chol = np.linalg.cholesky(k_signal + (noise + JITTER) * np.eye(n))
    except np.linalg.LinAlgError:
        return 1e10, np.zeros_like(theta)
    alpha = cho_solve((chol, True), y)
    nll = 0.5 * float(y @ alpha) + float(np.log(np.diag(chol)).sum()) + 0.5 * n * math.log(2 * math.pi)
    inner = np.outer(alpha, alpha) - cho_solve((chol, True), np.eye(n))  # dNLL/dK = -inner / 2
    # dk/dlog l_i for the Matern part: 5/3 (1 + sqrt5 r) exp(-sqrt5 r) * gap_i / l_i^2
    common = signal * hamming * 5.0 / 3.0 * (1.0 + SQRT5 * r) * decay
    grad_numeric = -0.5 * np.einsum("ij,ijk->k", inner * common, scaled)
    grad_categorical = -0.5 * np.einsum("ij,ijk->k", inner * k_signal, mism / lengths[d:])
    grad_signal = -0.5 * float((inner * k_signal).sum())
    grad_noise = -0.5 * float(np.trace(inner)) * noise
    grad = np.concatenate([grad_numeric, grad_categorical, [grad_signal, grad_noise]])
    prior_mean = np.concatenate([np.full(len(lengths), PRIOR_LENGTH), [0.0, noise_prior]])
    nll += float(((theta - prior_mean) ** 2).sum()) / (2 * PRIOR_WIDTH ** 2)
    return nll, grad + (theta - prior_mean) / PRIOR_WIDTH ** 2


@dataclass
class GaussianProcess:
    """A fitted process: predictions are in the units of the observations."""

    x: np.ndarray
    c: np.ndarray
    hyper: Hyper
    #: the inverse of the Cholesky factor of the kernel matrix (a product is faster than a solve).
    chol_inv: np.ndarray
    alpha: np.ndarray
    offset: float
    scale: float

    @property
    def noise_variance(self) -> float:
        """The fitted variance of one observation around the latent function, in its units squared."""
        return math.exp(self.hyper.log_noise) * self.scale ** 2

    def predict(self, x: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means and standard deviations (of the latent function) at the points."""
        signal = math.exp(self.hyper.log_signal)
        cross = signal * correlation(x, c, self.x, self.c, self.hyper)
        mean = cross @ self.alpha
        v = self.chol_inv @ cross.T
        var = np.maximum(signal - (v * v).sum(axis=0), 1e-12)
        return self.offset + self.scale * mean, self.scale * np.sqrt(var)

    @classmethod
    def conditioned(cls, x: np.ndarray, c: np.ndarray, y: np.ndarray, hyper: Hyper) -> GaussianProcess:
        """A process with these hyperparameters conditioned on the observations ``y``."""
        return _posterior(x, c, y, hyper)

    def condition(self, x: np.ndarray, c: np.ndarray, y: np.ndarray) -> GaussianProcess:
        """The same hyperparameters on these observations (kriging believer: the running trials
        added with their predicted values)."""
        return _posterior(x, c, y, self.hyper)


def _standardised(y: np.ndarray) -> tuple[np.ndarray, float, float]:
    offset = float(np.mean(y))
    scale = float(np.std(y)) or 1.0
    return (y - offset) / scale, offset, scale


def _posterior(x: np.ndarray, c: np.ndarray, y: np.ndarray, hyper: Hyper) -> GaussianProcess:
    z, offset, scale = _standardised(y)
    k = math.exp(hyper.log_signal) * correlation(x, c, x, c, hyper)
    k[np.diag_indices_from(k)] += math.exp(hyper.log_noise) + JITTER
    chol = np.linalg.cholesky(k)
    chol_inv = solve_triangular(chol, np.eye(len(z)), lower=True)
    return GaussianProcess(x, c, hyper, chol_inv, chol_inv.T @ (chol_inv @ z), offset, scale)


def fit(x: np.ndarray, c: np.ndarray, y: np.ndarray, start: Hyper | None = None,
        max_iterations: int = 60, noise_prior: float = PRIOR_NOISE,
        noise: float | None = None) -> GaussianProcess:
    """Fit the hyperparameters to the observations ``y`` at (``x``, ``c``) and condition on them;
    the search starts from ``start`` (a previous fit) when given. ``noise_prior`` is the log of
    the noise variance (as a share of the observations' variance) the fit expects; ``noise``, in
    the units of ``y`` squared, is the noise variance when it is known (measured from repeated
    configurations): it is then kept, not fitted."""
    z, _, scale = _standardised(y)
    initial = Hyper.initial(x.shape[1], c.shape[1]) if start is None else start
    gaps, mism = _squared_gaps(x, x), _mismatches(c, c)
    noise_bounds = LOG_NOISE
    if noise is not None:
        known = float(np.clip(math.log(max(noise, 1e-300) / scale ** 2), *LOG_NOISE))
        noise_bounds = (known, known)
    bounds = [LOG_LENGTH] * (x.shape[1] + c.shape[1]) + [LOG_SIGNAL, noise_bounds]
    theta0 = np.clip(initial.vector(), [b[0] for b in bounds], [b[1] for b in bounds])
    with np.errstate(all="ignore"):
        result = minimize(_objective, theta0, args=(gaps, mism, z, noise_prior), jac=True, method="L-BFGS-B",
                          bounds=bounds, options={"maxiter": max_iterations})
    theta = result.x if np.all(np.isfinite(result.x)) else theta0
    return _posterior(x, c, y, Hyper.of(theta))
