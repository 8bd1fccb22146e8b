"""BOHB: a density model per budget with the rungs of ``asha`` or ``hyperband`` (Falkner et al., 2018),
asynchronous like ASHA: a configuration is proposed whenever a slot frees.

- The model learns from the largest budget (rung, or the top budget) at which at least
  ``min_points + 2`` trials have a result (``min_points`` defaults to the number of free
  parameters plus one): the best ``max(min_points, top_fraction * n)`` results (default 15 %)
  make the density of good configurations ``l``, the others that of bad ones ``g``
  (:mod:`.kde`: Parzen densities on the unit cube, categorical values with their own kernel).
- A suggestion draws ``candidates`` points (default 64) from ``l`` with bandwidths
  ``bandwidth_factor`` times as wide (default 3) and proposes the one of highest ``l / g``.
- A fraction ``random_fraction`` of the suggestions (default 1/3), and every one before a budget
  has enough results, is drawn uniformly, so the search keeps exploring.
- Failed trials are ignored; a non-finite result counts as the worst at its budget. Early-stopped
  trials count at every rung they reached, completed ones at the top budget too.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
    >>> bohb = BOHBStrategy(space, seed=0)
    >>> for i in range(40):
    ...     x = bohb.suggest(i).params["x"]
    ...     bohb.report(i, 1, (x - 0.3) ** 2 + 0.1)
    ...     bohb.observe(i, (x - 0.3) ** 2, TrialState.COMPLETED)
    >>> bohb.suggest(40).info["model"]  # the top budget: the end of training
    2147483648
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hpnb.core.space import SearchSpace
from hpnb.core.strategies._options import check_int, check_number
from hpnb.core.strategies.gp_encoding import Encoding
from hpnb.core.strategies.kde import MIN_BANDWIDTH, Parzen
from hpnb.core.strategies.multi_fidelity import MultiFidelityStrategy
from hpnb.core.trial import TrialState  # noqa: F401  (the example uses it)


class BOHBStrategy(MultiFidelityStrategy):
    """Good and bad Parzen densities fitted at the largest budget with enough results."""

    name = "bohb"
    options = ("min_points", "top_fraction", "random_fraction", "candidates", "bandwidth_factor",
               "min_bandwidth")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        self.min_points = check_int("min_points", options.get("min_points", space.dimension + 1), 1)
        self.top_fraction = check_number("top_fraction", options.get("top_fraction", 0.15), 0.01, 0.99)
        self.random_fraction = check_number("random_fraction", options.get("random_fraction", 1 / 3),
                                            0.0, 1.0)
        self.candidates = check_int("candidates", options.get("candidates", 64), 1, 10_000)
        self.bandwidth_factor = check_number("bandwidth_factor", options.get("bandwidth_factor", 3.0),
                                             0.1, 100.0)
        self.min_bandwidth = check_number("min_bandwidth", options.get("min_bandwidth", MIN_BANDWIDTH),
                                          1e-6, 1.0)
        self.encoding = Encoding(space)
        #: inactive categorical values (-1 in the encoding) are a value of their own in a conditional space
        self._shift = 1 if space.is_conditional else 0

    def propose(self, trial_id: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        budget = self.record.largest_with(self.min_points + 2)
        if budget is None or rng.random() < self.random_fraction:
            return self.space.from_unit(rng.random(self.space.dimension)), {"bohb": "random"}
        good, bad = self.split(budget)
        sizes = self.encoding.sizes + self._shift
        lx, lc = self._encoded(good)
        gx, gc = self._encoded(bad)
        l_density = Parzen.fit(lx, lc, sizes, self.min_bandwidth)
        g_density = Parzen.fit(gx, gc, sizes, self.min_bandwidth)
        qx, qc = l_density.sample(rng, self.candidates, self.bandwidth_factor, self.min_bandwidth)
        qx = self.encoding.snap(qx)
        ratio = l_density.log_pdf(qx, qc) - g_density.log_pdf(qx, qc)
        best = int(np.argmax(ratio))
        return self.encoding.decode(qx[best], qc[best] - self._shift), {"bohb": "model", "model": budget}

    def split(self, budget: int) -> tuple[list[int], list[int]]:
        """The trials of the good and the bad density at ``budget``: the best
        ``max(min_points, top_fraction * n)`` and the others (the worst result last)."""
        losses = self.record.at(budget)
        ranked = sorted(losses, key=lambda tid: (losses[tid], tid))
        count = max(self.min_points, math.ceil(self.top_fraction * len(ranked)))
        return ranked[:count], ranked[count:]

    def _encoded(self, trials: list[int]) -> tuple[np.ndarray, np.ndarray]:
        x, c = self.encoding.encode([self.configs[tid] for tid in trials])
        return x, c + self._shift
