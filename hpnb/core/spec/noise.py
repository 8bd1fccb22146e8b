"""``noise:``: whether the search's metric is noisy (a seed, a data split). With ``true`` ``gp``
(and ``auto`` running it) models the noise, runs promising configurations again, and the search's
best is the configuration of best estimated mean over its runs (:mod:`hpnb.core.repeats`). With
``false`` it runs nothing twice. Absent, ``gp`` finds out: it runs its best configuration again
(twice at most), and the search is noisy once a repeat gives another result.

Example:
    >>> parse_noise(True), parse_noise(False), parse_noise(None)
    (True, False, None)
    >>> strategy_options({"max_points": 50}, ("noise", "max_points"), noise=True)
    {'max_points': 50, 'noise': True}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hpnb.core.errors import SpecError

NOISE_HELP = ("true (the metric is noisy: gp and auto model the noise and run promising configurations "
              "again, the best is ranked by its mean), false (never run a configuration twice), or absent "
              "(gp runs its best configuration again to find out)")


def parse_noise(value: Any) -> bool | None:
    """``noise:``: true or false; absent: None (the strategy finds out)."""
    if value is None:
        return None
    if not isinstance(value, bool):
        raise SpecError("noise", "must be true or false", value=value, allowed=NOISE_HELP)
    return value


def strategy_options(options: Mapping[str, Any], accepted: Collection[str],
                     noise: bool | None) -> dict[str, Any]:
    """The strategy's options, with ``noise`` when the spec says it and the strategy models noise
    (it names ``noise`` among its options); the others ignore it."""
    given = dict(options)
    if noise is not None and "noise" in accepted and "noise" not in given:
        given["noise"] = noise
    return given
