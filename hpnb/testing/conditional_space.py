"""A conditional search space shared by the strategies' suite and the tests of conditions.

Example:
    >>> space = conditional_space()
    >>> space.active({"optimizer": "adam", "beta": 0.9, "momentum": 0.5, "layers": 1})
    {'optimizer': 'adam', 'beta': 0.9, 'layers': 1}
    >>> space.grid_size()
    26
"""

from __future__ import annotations

from hpnb.core.conditions import Condition
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace


def conditional_space() -> SearchSpace:
    """An optimizer choice with per-optimizer parameters, one of them nested (26 grid points)."""
    return SearchSpace((
        CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
        FloatParameter("momentum", low=0.5, high=0.9, step=0.2),
        CategoricalParameter("nesterov", (True, False)),
        IntParameter("dampening", 0, 1),
        FloatParameter("beta", "logUniform", low=0.9, high=0.99, step=0.09),
        IntParameter("layers", 1, 2),
    ), conditions=(
        Condition("momentum", (("optimizer", ("sgd",)),)),
        Condition("nesterov", (("optimizer", ("sgd",)),)),
        Condition("dampening", (("nesterov", (False,)), ("optimizer", ("sgd",)))),
        Condition("beta", (("optimizer", ("adam", "rmsprop")),)),
    ))
