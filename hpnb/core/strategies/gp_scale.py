"""The scale on which ``gp`` models a search's losses: their logarithm when every loss is positive
and the worst is at least :data:`LOG_SPAN` times the best, the losses themselves otherwise.

Errors such as a mean squared error or a log loss differ by factors, not by amounts: a few
diverged configurations, a thousand times worse than the good ones, would set the standardised
scale of the raw losses and flatten every good configuration into one value, leaving the model
nothing to tell them apart by. An error rate does the same when some configurations do not learn
at all: a classifier at chance (an error of 0.8 on seven classes) beside good ones at 0.03. Losses
in a narrower range (error rates between 0.1 and 0.4), or with a value at or below zero (an
accuracy that is maximised: its loss is the negated accuracy), are learnt as they are.

Example:
    >>> on_log_scale([0.002, 0.01, 0.9]), on_log_scale([0.03, 0.8]), on_log_scale([0.12, 0.3])
    (True, True, False)
    >>> on_log_scale([0.0, 5.0])
    False
    >>> [round(float(v), 3) for v in scaled([0.01, 1.0], log=True)]
    [-4.605, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the ratio of the worst to the best loss from which the losses are modelled on a log scale: an
#: error rate at chance beside good ones reaches it; one of 0.1 to 0.4 does not. Chosen on the real
#: tables of benchmarks/history/tables.md: 100 left segment's chance plateau (28 times its best) on
#: the raw scale, 10 reached error rates spanning 10 times (phoneme), where the raw scale did better.
LOG_SPAN = 20.0


def on_log_scale(losses: Sequence[float]) -> bool:
    """Whether losses are modelled by their logarithm: all positive, spanning :data:`LOG_SPAN`."""
    values = np.asarray(losses, dtype=float)
    return bool(values.size and np.all(values > 0.0) and np.all(np.isfinite(values))
                and values.max() >= LOG_SPAN * values.min())


def scaled(losses: Sequence[float], log: bool) -> np.ndarray:
    """The losses on the scale the model learns (``log``: their natural logarithm)."""
    values = np.asarray(losses, dtype=float)
    return np.log(values) if log else values
