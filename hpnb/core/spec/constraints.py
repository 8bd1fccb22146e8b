"""The ``constraints:`` section of a spec: bounds on reported metrics.

The same concept as :mod:`hpnb.core.constraints`, on the spec's side. The form is a mapping of
metric name to its bounds, ``min``, ``max`` or both::

    constraints:
      model_size: {max: 1.0e6}
      latency_ms: {max: 20}
      accuracy: {min: 0.8, max: 1.0}

Any metric the objective reports may be bounded, the search's own objective too.

Example:
    >>> parse_constraints({"latency_ms": {"max": 20}})
    (Constraint(metric='latency_ms', min=None, max=20.0),)
    >>> parse_constraints(None)
    ()
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.constraints import Constraint
from hpnb.core.errors import SpecError
from hpnb.core.spec.values import as_float, as_mapping, check_keys

#: the most constraints a search may have.
MAX_CONSTRAINTS = 32
_FORM = "a mapping METRIC: {min: NUMBER, max: NUMBER} (either bound or both)"
_BOUNDS = ("min", "max")


def parse_constraints(value: Any) -> tuple[Constraint, ...]:
    """The constraints of ``constraints:`` (None or an empty mapping: none)."""
    if value is None:
        return ()
    entries = as_mapping(value, "constraints", allowed=_FORM)
    if len(entries) > MAX_CONSTRAINTS:
        raise SpecError("constraints", f"has {len(entries)} constraints, more than the limit of "
                        f"{MAX_CONSTRAINTS} (MAX_CONSTRAINTS)", allowed=f"at most {MAX_CONSTRAINTS} metrics")
    return tuple(_constraint(name, bounds) for name, bounds in entries.items())


def _constraint(name: str, bounds: Any) -> Constraint:
    path = f"constraints.{name}"
    if not name.strip():
        raise SpecError(path, "a constraint names a metric", value=name,
                        allowed="the name of a metric your function reports")
    if not isinstance(bounds, Mapping):
        raise SpecError(path, "must give its bounds as min: and/or max:", value=bounds,
                        allowed=f"{{max: {bounds}}} or {{min: {bounds}}}" if _is_number(bounds) else _FORM)
    check_keys(as_mapping(bounds, path), path, _BOUNDS)
    if all(bounds.get(key) is None for key in _BOUNDS):
        raise SpecError(path, "has no bound: give min:, max: or both", value=dict(bounds), allowed=_FORM)
    low, high = (None if bounds.get(k) is None else as_float(bounds[k], f"{path}.{k}") for k in _BOUNDS)
    if low is not None and high is not None and low > high:
        raise SpecError(f"{path}.min", f"is more than max ({high:g}): no value could satisfy it",
                        value=low, allowed=f"min <= max, e.g. {{min: {high:g}, max: {low:g}}}")
    return Constraint(name.strip(), low, high)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
