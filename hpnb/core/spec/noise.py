"""``noise: true``: the search's metric is noisy (a seed, a data split), so ``gp`` (and ``auto``
running it) models the noise, runs promising configurations again, and the search's best is the
configuration of best estimated mean over its runs (:mod:`hpnb.core.repeats`).

Example:
    >>> parse_noise(True), parse_noise(None)
    (True, False)
    >>> strategy_options({"max_points": 50}, ("noise", "max_points"), noise=True)
    {'max_points': 50, 'noise': True}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hpnb.core.errors import SpecError

NOISE_HELP = ("true (the metric is noisy: gp and auto model the noise and run promising configurations "
              "again, the best is ranked by its mean) or false")


def parse_noise(value: Any) -> bool:
    """``noise:``: true or false (absent: false)."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise SpecError("noise", "must be true or false", value=value, allowed=NOISE_HELP)
    return value


def strategy_options(options: Mapping[str, Any], accepted: Collection[str], noise: bool) -> dict[str, Any]:
    """The strategy's options, with ``noise: True`` for a noisy search when the strategy models
    noise (it names ``noise`` among its options); the others ignore it."""
    given = dict(options)
    if noise and "noise" in accepted and "noise" not in given:
        given["noise"] = True
    return given
