"""hpnb parameters in Optuna's terms: the distribution each is asked with, a stored value
encoded for Optuna, and Optuna kept quiet while it runs (the strategies on Optuna's samplers and
parameter importance use them).

How parameters map to Optuna distributions:

==========================================  ================================================
hpnb parameter                              Optuna distribution
==========================================  ================================================
uniform [low, high]                         ``FloatDistribution(low, high)``
uniform with step                           ``FloatDistribution(low, high', step)``, high' the
                                            last grid value
logUniform                                  ``FloatDistribution(low, high, log=True)``
logUniform with step                        the unit axis (below): uniform there is
                                            log-uniform in the value, then quantised
normal, logNormal (bounded or not)          the unit axis: ``FloatDistribution(0, 1)`` over
                                            the parameter's quantile, mapped with
                                            ``Parameter.from_unit``
int (step, or log with step 1)              ``IntDistribution(low, high', step, log)``
int, log with step > 1                      the unit axis (Optuna forbids log with a step)
ordered list, evenly spaced on its scale     ``IntDistribution(0, n - 1)`` over the index of
                                            the value (its order and spacing exactly)
ordered list, unevenly spaced               the unit axis: each value's position on its
                                            scale (log or linear), mapped back to the
                                            nearest value
categorical                                 ``CategoricalDistribution`` over the positions
                                            of the choices (so any YAML value works)
fixed                                       not given to Optuna; added to every config
==========================================  ================================================

On the unit axis Optuna models the value it asked for (the quantile), not the
quantised value the trial ran with; ask-and-tell cannot change a trial's
parameters after asking, and nearby quantiles give the same value anyway.

Example:
    >>> from hpnb.core.space import IntParameter
    >>> optuna_distribution(IntParameter("layers", low=1, high=4))
    (IntDistribution(high=4, log=False, low=1, step=1), False)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, OrdinalParameter, Parameter


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Silence Optuna's log messages and warnings for the duration of the block."""
    import optuna

    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        optuna.logging.set_verbosity(verbosity)


def optuna_distribution(p: Parameter) -> tuple[Any, bool]:
    """The Optuna distribution of free parameter ``p``, and whether it is the unit axis."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    unit = FloatDistribution(0.0, 1.0)
    if isinstance(p, CategoricalParameter):
        return CategoricalDistribution(tuple(range(len(p.choices)))), False
    if isinstance(p, OrdinalParameter):
        return (IntDistribution(0, len(p.values) - 1), False) if p.evenly_spaced else (unit, True)
    if isinstance(p, IntParameter):
        if p.log and p.step != 1:
            return unit, True
        return IntDistribution(p.low, p.low + (p.count - 1) * p.step, log=p.log, step=p.step), False
    if isinstance(p, FloatParameter) and p.low is not None and p.high is not None:
        if p.distribution == "uniform":
            high = p.high if p.step is None else p.from_unit(1.0)  # the last grid value
            return FloatDistribution(p.low, high, step=p.step), False
        if p.distribution == "logUniform" and p.step is None:
            return FloatDistribution(p.low, p.high, log=True), False
    return unit, True


def encode_value(p: Parameter, value: Any, on_unit: bool) -> Any:
    """A stored value of free parameter ``p`` in Optuna's terms (``on_unit``: see
    :func:`optuna_distribution`); raises ValueError for a value ``p`` cannot take."""
    if on_unit:
        return p.to_unit(value)
    if isinstance(p, (CategoricalParameter, OrdinalParameter)):
        return p.index(value)
    return int(value) if isinstance(p, IntParameter) else float(value)
