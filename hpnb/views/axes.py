"""The parameters' axes of the parallel-coordinates plot, the same in the cell's dashboard and the Lab.

Log-distributed parameters are drawn as ``log10`` of their values with tick
labels at powers of ten; categorical parameters as the index of their choice
with the choices as tick labels (then any value seen that the spec does not list);
integer parameters with ticks on integers only; an ordered list of numbers on its scale
(log, linear or by rank, as its parameter places it) with its values as the ticks.
A trial without a parameter (inactive under a ``when:``) is drawn on a slot below
its axis. Pure data: no plotly here.

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

from hpnb.core.space import CategoricalParameter, IntParameter, OrdinalParameter, Parameter, SearchSpace
from hpnb.core.store.records import TrialRecord


@dataclass(frozen=True)
class Axis:
    """One vertical axis: its label, one value per trial, and optional ticks and range."""

    label: str
    values: list[float]
    tickvals: list[float] | None = None
    ticktext: list[str] | None = None
    range: tuple[float, float] | None = None


def _log10(value: Any) -> float:
    if value is None:  # an inactive parameter of a conditional space: no point on the axis
        return math.nan
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


def integer_step(low: float, high: float, max_ticks: int = 10) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50 ... that puts at most ``max_ticks`` ticks on ``low..high``.

    Example:
        >>> integer_step(1, 4), integer_step(0, 27)
        (1, 5)
    """
    span = max(0.0, float(high) - float(low))
    decade = 1
    while True:
        for step in (decade, 2 * decade, 5 * decade):
            if span / step <= max_ticks - 1:
                return step
        decade *= 10


def integer_ticks(low: float, high: float, max_ticks: int = 10) -> list[float]:
    """Integer tick values on ``low..high``, :func:`integer_step` apart."""
    step = integer_step(low, high, max_ticks)
    first = math.ceil(low / step) * step
    return [float(k) for k in range(int(first), math.floor(high) + 1, step)]


def finite_span(values: Sequence[float]) -> tuple[float, float]:
    """The span of the finite ``values``; an equal or empty set gets a small span around it."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return (0.0, 1.0)
    low, high = min(finite), max(finite)
    if low == high:
        pad = abs(low) * 0.01 or 0.5
        return (low - pad, high + pad)
    return (low, high)


def _bounds(param: Parameter) -> tuple[float | None, float | None]:
    return getattr(param, "low", None), getattr(param, "high", None)


def _ordinal_axis(param: OrdinalParameter, values: Sequence[Any], max_ticks: int = 10) -> Axis:
    """An ordered list on its scale, its values the ticks (every k-th when there are many).

    Example:
        >>> axis = _ordinal_axis(OrdinalParameter("batch", (32, 64, 128)), [64, 32])
        >>> axis.label, [round(v, 3) for v in axis.values], axis.ticktext
        ('batch (log)', [1.806, 1.505], ['32', '64', '128'])
    """
    def scale(value: Any) -> float:
        if param.scale == "rank":  # nothing but the order: the value's place
            return float(param.index(value)) if param.contains(value) else math.nan
        return _log10(value) if param.is_log else _number(value)

    every = math.ceil(len(param.values) / max_ticks)
    shown = param.values[::every]
    ticks = [scale(v) for v in shown]
    span = (scale(param.low), scale(param.high))
    label = f"{param.name} (log)" if param.is_log else param.name
    return Axis(label, [scale(v) for v in values], ticks, [str(v) for v in shown], span)


def parameter_axis(param: Parameter, values: Sequence[Any]) -> Axis:
    """The axis of ``param`` for these trial values (in trial order)."""
    if isinstance(param, OrdinalParameter):
        return _ordinal_axis(param, values)
    if isinstance(param, CategoricalParameter):
        # the spec's choices in order, then any other value seen (a spec changed since the trial)
        labels = list(dict.fromkeys([*map(str, param.choices), *(str(v) for v in values if v is not None)]))
        index = {label: float(i) for i, label in enumerate(labels)}
        points = [math.nan if value is None else index[str(value)] for value in values]
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
    if isinstance(param, IntParameter):
        lo, hi = span if span is not None else finite_span(points)
        ticks = integer_ticks(lo, hi)
        return Axis(param.name, points, ticks, [str(int(t)) for t in ticks], span)
    return Axis(param.name, points, None, None, span)


#: the tick of the slot below an axis where the trials without that parameter (inactive under a
#: ``when:``) are drawn: plotly's parallel coordinates cannot break a line (it draws a NaN at 0).
INACTIVE_LABEL = "(inactive)"


def with_inactive_slot(axis: Axis, missing: Sequence[bool]) -> Axis:
    """``axis`` with the trials flagged ``missing`` on a slot labelled :data:`INACTIVE_LABEL` below its range.

    Example:
        >>> axis = with_inactive_slot(Axis("momentum", [0.9, math.nan], range=(0.5, 1.0)), [False, True])
        >>> axis.values, axis.ticktext[0], axis.range
        ([0.9, 0.4], '(inactive)', (0.4, 1.0))
    """
    if not any(missing):
        return axis
    low, high = axis.range if axis.range is not None else finite_span(axis.values)
    slot = round(low - 0.2 * (high - low), 12)
    values = [slot if gone else value for value, gone in zip(axis.values, missing, strict=True)]
    ticks = [low + (high - low) * k / 4 for k in range(5)] if axis.tickvals is None else list(axis.tickvals)
    text = list(axis.ticktext) if axis.ticktext is not None else [f"{tick:.3g}" for tick in ticks]
    return Axis(axis.label, values, [slot, *ticks], [INACTIVE_LABEL, *text], (slot, high))


def _inferred_axis(name: str, values: Sequence[Any]) -> Axis:
    """An axis for a parameter the space does not describe: numbers as they are, else labels."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        ticks = integer_ticks(*finite_span([float(v) for v in values]))
        return Axis(name, [float(v) for v in values], ticks, [str(int(t)) for t in ticks])
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return Axis(name, [float(v) for v in values])
    labels = sorted({str(v) for v in values})
    return parameter_axis(CategoricalParameter(name, tuple(labels)), [str(v) for v in values])


def parameter_axes(space: SearchSpace | None, scored: Sequence[TrialRecord]) -> list[Axis]:
    """One axis per free parameter of ``space``, in its order, then one per varied parameter it
    does not describe (every varied one when the space is unknown), by name."""
    axes = []
    described: set[str] = set()
    if space is not None:
        described = {p.name for p in space.parameters}
        for param in space.free:
            axis = parameter_axis(param, [t.params.get(param.name) for t in scored])
            axes.append(with_inactive_slot(axis, [param.name not in t.params for t in scored]))
    for name in sorted({name for t in scored for name in t.params} - described):
        values = [t.params.get(name) for t in scored]
        if len({repr(v) for v in values}) > 1:
            axes.append(_inferred_axis(name, values))
    return axes
