"""Constraints on reported metrics, and the one rule of which trials are feasible.

A search may bound any metric its objective reports (``constraints:`` in the spec,
read by :mod:`hpnb.core.spec.constraints`): ``{latency_ms: {max: 20}, model_size: {max: 1.0e6}}``.
A trial is **feasible** when its last reported values satisfy every constraint. A trial that
never reported a constrained metric fails that constraint ("never reported latency_ms").
Infeasible trials are kept and shown, never chosen as best, never on a Pareto front
(:mod:`hpnb.core.summary` asks :func:`is_feasible`).

Strategies that learn from constraints get each trial's :func:`violations`, one number per
constraint, as Optuna's ``constraints_func`` takes them: at most 0 when satisfied, the distance
past the bound otherwise, infinite when the metric is missing.

Example:
    >>> limits = (Constraint("latency_ms", max=20.0), Constraint("size", min=1.0, max=5.0))
    >>> violations({"latency_ms": 25.0, "size": 3.0}, limits)
    (5.0, -2.0)
    >>> feasibility({"latency_ms": 12.0}, limits).reasons
    ('never reported size',)
    >>> feasibility({"latency_ms": 12.0, "size": 2}, limits).feasible
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hpnb.core.objectives import finite_number

if TYPE_CHECKING:
    from hpnb.core.store.records import ExperimentRecord, TrialRecord

#: the violation strategies learn for a metric a trial never reported: finite (models and
#: Optuna's sums of violations need numbers) and beyond any real one.
MISSING_VIOLATION = 1e30
#: how a leaderboard marks a trial that fails a constraint.
INFEASIBLE = "(infeasible)"


@dataclass(frozen=True)
class Constraint:
    """Bounds on one reported metric: ``min <= value <= max`` (either bound may be absent)."""

    metric: str
    min: float | None = None
    max: float | None = None

    def violation(self, value: float | None) -> float:
        """At most 0 when ``value`` is within the bounds, else how far past one it is; infinite
        when there is no value."""
        if value is None:
            return math.inf
        over = value - self.max if self.max is not None else -math.inf
        under = self.min - value if self.min is not None else -math.inf
        return max(over, under)

    def describe(self) -> str:
        """``latency_ms <= 20``, ``1 <= size <= 5``: the constraint as a message reads it."""
        low = "" if self.min is None else f"{self.min:g} <= "
        high = "" if self.max is None else f" <= {self.max:g}"
        return f"{low}{self.metric}{high}"

    def to_dict(self) -> dict[str, float]:
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


@dataclass(frozen=True)
class Feasibility:
    """Whether a trial satisfies every constraint, and why not."""

    feasible: bool
    reasons: tuple[str, ...] = ()


def violations(metrics: Mapping[str, Any], constraints: Sequence[Constraint]) -> tuple[float, ...]:
    """One number per constraint: at most 0 when satisfied (Optuna's convention)."""
    return tuple(c.violation(finite_number(metrics.get(c.metric))) for c in constraints)


def learnt_violations(metrics: Mapping[str, Any], constraints: Sequence[Constraint]) -> tuple[float, ...]:
    """:func:`violations` as strategies learn them: a missing metric is :data:`MISSING_VIOLATION`."""
    return tuple(min(v, MISSING_VIOLATION) for v in violations(metrics, constraints))


def feasibility(metrics: Mapping[str, Any], constraints: Sequence[Constraint]) -> Feasibility:
    """Whether ``metrics`` (a trial's last reported values) satisfy every constraint, with a
    reason for each one they fail."""
    reasons = []
    for constraint in constraints:
        value = finite_number(metrics.get(constraint.metric))
        if value is None:
            reasons.append(f"never reported {constraint.metric}")
        elif constraint.violation(value) > 0:
            reasons.append(f"{constraint.metric} = {value:g}, not {constraint.describe()}")
    return Feasibility(not reasons, tuple(reasons))


def missing(metrics: Mapping[str, Any], constraints: Sequence[Constraint]) -> list[str]:
    """The constrained metrics ``metrics`` lacks (or has as a non-finite value)."""
    return [c.metric for c in constraints if finite_number(metrics.get(c.metric)) is None]


def is_feasible(trial: TrialRecord, constraints: Sequence[Constraint]) -> bool:
    """Whether a stored trial satisfies every constraint (always, without constraints)."""
    return not constraints or all(v <= 0 for v in violations(trial.metrics, constraints))


def from_dict(data: Any) -> tuple[Constraint, ...]:
    """Constraints as a validated spec stores them (``{metric: {min, max}}``); anything else: none."""
    if not isinstance(data, Mapping):
        return ()
    return tuple(Constraint(str(name), _bound(b, "min"), _bound(b, "max"))
                 for name, b in data.items() if isinstance(b, Mapping))


def _bound(bounds: Mapping[str, Any], key: str) -> float | None:
    return finite_number(bounds.get(key))


def record_constraints(record: ExperimentRecord) -> tuple[Constraint, ...]:
    """The constraints of a stored search (none for a search stored before they existed)."""
    return from_dict(record.spec.get("constraints") if isinstance(record.spec, dict) else None)


def constraints_text(constraints: Sequence[Constraint], infeasible: int) -> str:
    """``size <= 40 (2 infeasible trials, never best)``: what the front ends show of them.

    Example:
        >>> constraints_text((Constraint("size", max=40.0),), 1)
        'size <= 40 (1 infeasible trial, never best)'
    """
    bounds = ", ".join(c.describe() for c in constraints)
    return f"{bounds} ({infeasible} infeasible trial{'' if infeasible == 1 else 's'}, never best)"


def to_dict(constraints: Sequence[Constraint]) -> dict[str, dict[str, float]]:
    """``{metric: {min, max}}``: what the spec says (:func:`from_dict` reads it back)."""
    return {c.metric: c.to_dict() for c in constraints}
