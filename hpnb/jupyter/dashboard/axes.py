"""The axes of the parallel-coordinates plot: one per free parameter, then the metric.

Log-distributed parameters are drawn as ``log10`` of their values with tick
labels at powers of ten; categorical parameters as the index of their choice
with the choices as tick labels. Pure data: no plotly here.

Example:
    >>> from hpnb.core.space import FloatParameter
    >>> axis = parameter_axis(FloatParameter("lr", "logUniform", low=1e-4, high=1e-1), [1e-3, 1e-2])
    >>> axis.values, axis.ticktext
    ([-3.0, -2.0], ['1e-4', '1e-3', '1e-2', '1e-1'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.space import CategoricalParameter, Parameter, SearchSpace
from hpnb.core.store.records import TrialRecord
from hpnb.jupyter.dashboard.data import score


@dataclass(frozen=True)
class Axis:
    """One vertical axis: its label, one value per trial, and optional ticks and range."""

    label: str
    values: list[float]
    tickvals: list[float] | None = None
    ticktext: list[str] | None = None
    range: tuple[float, float] | None = None


@dataclass(frozen=True)
class ParallelCoordinates:
    """The axes, the colour value of each line (the metric) and the trial id of each line."""

    axes: list[Axis]
    colors: list[float]
    trial_ids: list[int]
    reverse_scale: bool


def _log10(value: Any) -> float:
    number = float(value)
    return math.log10(number) if number > 0 else math.nan


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _decade_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    first, last = math.floor(low), math.ceil(high)
    ticks = [float(k) for k in range(first, last + 1)]
    return ticks, [f"1e{k}" for k in range(first, last + 1)]


def _bounds(param: Parameter) -> tuple[float | None, float | None]:
    return getattr(param, "low", None), getattr(param, "high", None)


def parameter_axis(param: Parameter, values: Sequence[Any]) -> Axis:
    """The axis of ``param`` for these trial values (in trial order)."""
    if isinstance(param, CategoricalParameter):
        labels = [str(choice) for choice in param.choices]
        index = {str(choice): float(i) for i, choice in enumerate(param.choices)}
        points = [index.get(str(value), math.nan) for value in values]
        top = max(1.0, float(len(labels) - 1))
        return Axis(param.name, points, list(map(float, range(len(labels)))), labels, (0.0, top))
    low, high = _bounds(param)
    if param.is_log:
        points = [_log10(value) for value in values]
        finite = [p for p in points if not math.isnan(p)]
        lo = _log10(low) if low is not None else min(finite, default=0.0)
        hi = _log10(high) if high is not None else max(finite, default=1.0)
        tickvals, ticktext = _decade_ticks(lo, hi)
        return Axis(f"{param.name} (log)", points, tickvals, ticktext, (lo, hi))
    points = [_number(value) for value in values]
    span = (float(low), float(high)) if low is not None and high is not None else None
    return Axis(param.name, points, None, None, span)


def _inferred_axis(name: str, values: Sequence[Any]) -> Axis:
    """An axis for a parameter the space does not describe: numbers as they are, else labels."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return Axis(name, [float(v) for v in values])
    labels = sorted({str(v) for v in values})
    return parameter_axis(CategoricalParameter(name, tuple(labels)), [str(v) for v in values])


def parallel_coordinates(
    space: SearchSpace | None, trials: Sequence[TrialRecord], metric: str, mode: str
) -> ParallelCoordinates:
    """One line per trial that has a score; fixed parameters get no axis.

    The colour scale is reversed for ``mode == "min"`` so the best trials have
    the same colour whichever the direction.
    """
    scored = sorted((t for t in trials if score(t) is not None), key=lambda t: t.trial_id)
    axes = []
    if space is not None:
        for param in space.free:
            axes.append(parameter_axis(param, [t.params.get(param.name) for t in scored]))
    else:
        names = sorted({name for t in scored for name in t.params})
        for name in names:
            values = [t.params.get(name) for t in scored]
            if len({repr(v) for v in values}) > 1:
                axes.append(_inferred_axis(name, values))
    colors = [float(score(t)) for t in scored]  # type: ignore[arg-type]
    axes.append(Axis(metric, colors))
    return ParallelCoordinates(axes, colors, [t.trial_id for t in scored], reverse_scale=mode == "min")
