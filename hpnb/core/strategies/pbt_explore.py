"""Population-based training, explore step: new hyperparameters from a donor's.

``perturb`` changes every free parameter a little:

- real and integer parameters are multiplied by a factor drawn uniformly from
  ``factors`` (default 0.8 or 1.2), clipped into their bounds, and put back on their
  ``step`` grid (integers rounded); when the grid would give back the same value,
  the parameter moves one step in the factor's direction instead, so small
  integers are not stuck. Unbounded (normal-family) parameters are multiplied too;
  a value of exactly 0 stays 0.
- categorical and ordered-list parameters move to a neighbouring value (an ordered list's
  next smaller or larger number, a categorical's neighbour as written): one place up or down
  with equal chance; at either end, to the only neighbour.
- fixed parameters stay.

In a conditional space only the active parameters change; when a categorical
parent moves to a value that activates a parameter the donor did not have, that
parameter is drawn from its prior, and parameters it deactivates are left out.

``resample`` redraws each free parameter from its prior with probability
``probability`` and perturbs it otherwise.

Example:
    >>> import numpy as np
    >>> from hpnb.core.space import IntParameter, SearchSpace
    >>> space = SearchSpace((IntParameter("layers", 1, 4),))
    >>> perturb(space, {"layers": 1}, np.random.default_rng(0), factors=(1.2,))
    {'layers': 2}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from hpnb.core.space import (
    CategoricalParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    Parameter,
    SearchSpace,
)

EXPLORES: tuple[str, ...] = ("perturb", "resample")
DEFAULT_FACTORS: tuple[float, ...] = (0.8, 1.2)


def _neighbour(param: CategoricalParameter | OrdinalParameter, value: Any, rng: np.random.Generator) -> Any:
    """The value before or after ``value`` in the list (an ordered list's order, else as written)."""
    values = param.values if isinstance(param, OrdinalParameter) else param.choices
    size = len(values)
    if size == 1:
        return value
    index, direction = param.index(value), int(rng.choice((-1, 1)))
    moved = index + direction
    if not 0 <= moved < size:
        moved = index - direction
    return values[moved]


def _scale_int(param: IntParameter, value: int, factor: float) -> int:
    target = value * factor
    k = round((target - param.low) / param.step)
    if param.low + k * param.step == value and target != value:
        k += 1 if target > value else -1
    return param.low + min(max(k, 0), param.count - 1) * param.step


def _scale_float(param: FloatParameter, value: float, factor: float) -> float:
    target = value * factor
    if param.low is not None:
        target = max(target, param.low)
    if param.high is not None:
        target = min(target, param.high)
    if param.step is None:
        return target
    snapped = param.from_unit(param.to_unit(target))
    if math.isclose(snapped, value) and not math.isclose(target, value):
        nudged = value + (param.step if target > value else -param.step)
        snapped = param.from_unit(param.to_unit(nudged))
    return snapped


def perturb_value(param: Parameter, value: Any, rng: np.random.Generator,
                  factors: Sequence[float] = DEFAULT_FACTORS) -> Any:
    """One parameter's value after a perturbation (see the module docstring)."""
    if param.is_fixed:
        return value
    if isinstance(param, (CategoricalParameter, OrdinalParameter)):
        return _neighbour(param, value, rng)
    factor = float(factors[int(rng.integers(len(factors)))])
    if isinstance(param, IntParameter):
        return _scale_int(param, int(value), factor)
    if isinstance(param, FloatParameter):
        return _scale_float(param, float(value), factor)
    return value


def explored(space: SearchSpace, params: Mapping[str, Any],
              change: Callable[[Parameter, Any], Any], rng: np.random.Generator) -> dict[str, Any]:
    """``change`` applied to each active parameter, parents first; a parameter that the change
    of a parent made active (absent from ``params``) is drawn from its prior."""
    out: dict[str, Any] = {}
    for p in space.evaluation_order:
        condition = space.condition(p.name)
        if condition is not None and not condition.holds(out):
            continue
        out[p.name] = change(p, params[p.name]) if p.name in params else p.sample(rng)
    return {name: out[name] for name in space.names if name in out}


def perturb(space: SearchSpace, params: Mapping[str, Any], rng: np.random.Generator,
            factors: Sequence[float] = DEFAULT_FACTORS, **_: Any) -> dict[str, Any]:
    """``params`` with every active free parameter perturbed, in the order of the space."""
    return explored(space, params, lambda p, value: perturb_value(p, value, rng, factors), rng)


def resample(space: SearchSpace, params: Mapping[str, Any], rng: np.random.Generator,
             factors: Sequence[float] = DEFAULT_FACTORS, probability: float = 0.25,
             **_: Any) -> dict[str, Any]:
    """``params`` with each active free parameter redrawn from its prior with ``probability``,
    else perturbed."""
    def change(p: Parameter, value: Any) -> Any:
        if not p.is_fixed and rng.random() < probability:
            return p.sample(rng)
        return perturb_value(p, value, rng, factors)

    return explored(space, params, change, rng)


EXPLORE_RULES = {"perturb": perturb, "resample": resample}
