"""What a search optimises: one objective or several, each a metric and a direction.

A search with one objective ranks trials by that metric's value. A search with
several has no single best trial: it has a Pareto front (see :mod:`hpnb.core.non_domination`),
the trials no other trial beats on every objective at once. The spec's side of the same
concept (reading ``metric:``, ``mode:`` and ``metrics:``) is :mod:`hpnb.core.spec.objectives`.

Example:
    >>> objectives = (Objective("val_loss", "min"), Objective("accuracy", "max"))
    >>> objective_values({"val_loss": 0.3, "accuracy": 0.9, "epoch": 4}, objectives)
    (0.3, 0.9)
    >>> losses((0.3, 0.9), objectives)
    (0.3, -0.9)
    >>> objective_values({"val_loss": 0.3}, objectives) is None
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["min", "max"]


@dataclass(frozen=True)
class Objective:
    """One metric a search optimises, and whether lower (``min``) or higher (``max``) is better.

    It owns the direction: every comparison of two values of a metric goes through it.

    Example:
        >>> accuracy = Objective("accuracy", "max")
        >>> accuracy.loss(0.9), accuracy.is_better(0.9, 0.8)
        (-0.9, True)
    """

    name: str
    mode: Mode = "min"

    def loss(self, value: float) -> float:
        """``value`` as a quantity to minimise (the one place the direction flips a sign)."""
        return value if self.mode == "min" else -value

    def is_better(self, value: float, other: float) -> bool:
        """Whether ``value`` is strictly better than ``other``."""
        return self.loss(value) < self.loss(other)

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "mode": self.mode}


def finite_number(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (metrics are plain numbers by the time
    they are stored), else None: missing, NaN, infinite, a bool or not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def objective_values(metrics: Mapping[str, Any], objectives: Sequence[Objective]) -> tuple[float, ...] | None:
    """The value of every objective in ``metrics``; None when one is missing or not finite."""
    values = tuple(finite_number(metrics.get(objective.name)) for objective in objectives)
    if any(value is None for value in values):
        return None
    return values  # type: ignore[return-value]


def losses(values: Sequence[float], objectives: Sequence[Objective]) -> tuple[float, ...]:
    """``values`` (one per objective) turned into quantities to minimise."""
    return tuple(objective.loss(value) for objective, value in zip(objectives, values, strict=True))


def describe(objectives: Sequence[Objective]) -> str:
    """``val_loss (min), latency_ms (min)``: how the objectives read in a message."""
    return ", ".join(f"{o.name} ({o.mode})" for o in objectives)


def goal(objectives: Sequence[Objective]) -> str:
    """What a search aims at, in words: ``minimise val_loss`` or, with several objectives,
    ``minimise val_loss, maximise accuracy (a Pareto front)``."""
    words = ", ".join(f"{'minimise' if o.mode == 'min' else 'maximise'} {o.name}" for o in objectives)
    return words + (" (a Pareto front)" if len(objectives) > 1 else "")
