"""Log expected improvement, maximised over a mixed space by random and local search.

The logarithm keeps the acquisition informative where the improvement is tiny (far from the
incumbent, late in a search), where plain EI underflows to zero and every candidate ties.

Example:
    >>> import numpy as np
    >>> log_ei(np.array([0.0, 1.0]), np.array([1.0, 1.0]), best=0.0).round(3).tolist()
    [-0.919, -2.485]
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import erfcx, log_ndtr

from hpnb.core.strategies.gp_encoding import Encoding

LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: how many random candidates, local candidates around each of the best points, and rounds of
#: local refinement (with shrinking steps) the acquisition is maximised over.
RANDOM_CANDIDATES, LOCAL_CANDIDATES, STARTS = 1000, 60, 5
REFINE_SPREADS = (0.1, 0.03, 0.01)

Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: points to keep away from (numeric and categorical coordinates) and how far, per numeric axis.
Away = tuple[np.ndarray, np.ndarray, float]


def log_ei(mean: np.ndarray, sd: np.ndarray, best: float) -> np.ndarray:
    """log E[max(best - f, 0)] for f ~ N(mean, sd^2) (minimisation), stable for very negative z."""
    sd = np.maximum(sd, 1e-12)
    z = (best - mean) / sd
    out = np.empty_like(z)
    upper = z > -1.0
    zu = z[upper]
    out[upper] = np.log(np.maximum(np.exp(-0.5 * zu * zu - LOG_SQRT_2PI) + zu * np.exp(log_ndtr(zu)), 1e-300))
    zl = np.maximum(z[~upper], -1e6)
    # phi(z) + z Phi(z) = phi(z) (1 + z Phi(z) / phi(z)), Phi(z) / phi(z) = erfcx(-z / sqrt 2) sqrt(pi / 2)
    ratio = zl * erfcx(-zl / math.sqrt(2.0)) * math.sqrt(math.pi / 2.0)
    out[~upper] = -0.5 * zl * zl - LOG_SQRT_2PI + np.log1p(np.maximum(ratio, -1.0 + 1e-16))
    return out + np.log(sd)


def maximise(score: Scorer, encoding: Encoding, rng: np.random.Generator,
             starts: tuple[np.ndarray, np.ndarray], excluded: set[bytes],
             away: Away | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The candidate with the highest ``score``: random points and neighbours of ``starts`` (the
    best points so far), then the best few refined by ever smaller local moves. Points whose
    :func:`key` is in ``excluded`` (running or already run) are not chosen while others remain,
    nor, with ``away``, points :func:`near` those while others remain."""
    x, c = encoding.random(rng, RANDOM_CANDIDATES)
    if len(starts[0]):
        nx, nc = encoding.neighbours(starts[0], starts[1], rng, LOCAL_CANDIDATES, REFINE_SPREADS[0])
        x, c = np.vstack([x, nx]), np.vstack([c, nc])
    values = score(x, c)
    for spread in REFINE_SPREADS:
        top = np.argsort(-values)[:STARTS]
        nx, nc = encoding.neighbours(x[top], c[top], rng, LOCAL_CANDIDATES // 2, spread)
        x, c = np.vstack([x, nx]), np.vstack([c, nc])
        values = np.concatenate([values, score(nx, nc)])
    order = np.argsort(-values, kind="stable")
    if away is not None:
        close = near(x[order], c[order], away)
        order = np.concatenate([order[~close], order[close]])
    chosen = next((i for i in order if key(x[i], c[i]) not in excluded), order[0])
    return x[chosen], c[chosen]


def near(x: np.ndarray, c: np.ndarray, away: Away) -> np.ndarray:
    """(n,): whether each point has the categories of one of ``away``'s points and is closer to it
    than its distance on every numeric axis."""
    ax, ac, distance = away
    out = np.zeros(len(x), dtype=bool)
    for point, categories in zip(ax, ac, strict=True):  # one point at a time: no (n, m, d) array
        out |= np.all(np.abs(x - point) < distance, axis=1) & np.all(c == categories, axis=1)
    return out


def key(x: np.ndarray, c: np.ndarray) -> bytes:
    """A hashable identity of an encoded point."""
    return np.round(x, 9).tobytes() + np.asarray(c, dtype=np.int64).tobytes()
