"""Slices and contours: the score against each parameter, and against two at once.

A **slice** is every finished trial with a score as a point (the parameter's value,
the score), with what the parameter's axis is: real, integer or categorical, and
whether it is log-scaled (``logUniform``, ``logNormal``, ``int`` with ``log``), so a
view draws log axes, integer ticks and categories in the spec's order.

A **contour** of two parameters is a regular grid over the range the trials cover
(geometric steps on a log axis, one line per category, every integer when there are
few) holding scores interpolated from the trials by inverse-distance weighting, each
axis scaled to [0, 1] first (log axes in log), plus the trials themselves to draw on
top. The interpolation only smooths what the trials measured: between far-apart
trials it is a guess, which is why the points are part of the data. The pair to draw
is the two most important parameters (:func:`contour_pair`).

Example:
    >>> from hpnb.core.space import CategoricalParameter, FloatParameter, SearchSpace
    >>> from hpnb.core.store import TrialRecord
    >>> space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=1.0),
    ...                      CategoricalParameter("opt", ("sgd", "adam"))))
    >>> trials = [TrialRecord(1, i, {"lr": 10.0 ** -(i + 1), "opt": ("sgd", "adam")[i % 2]}, "COMPLETED",
    ...                       0.0, 1.0, None, None, 0, None, None, float(i), float(i), {}, None, None)
    ...           for i in range(3)]
    >>> lr = parameter_slices(trials, space)[0]
    >>> lr.axis.kind, lr.axis.log, lr.values, lr.scores
    ('float', True, (0.1, 0.01, 0.001), (0.0, 1.0, 2.0))
    >>> contour = contour_data(trials, space, "lr", "opt", resolution=5)
    >>> len(contour.x_grid), contour.y_grid, len(contour.z), len(contour.z[0])
    (5, (0.0, 1.0), 2, 5)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from hpnb.core.analysis.analysis_errors import NotEnoughTrials
from hpnb.core.analysis.history import scored_trials
from hpnb.core.errors import HpnbError, closest
from hpnb.core.space import CategoricalParameter, IntParameter, OrdinalParameter, Parameter, SearchSpace
from hpnb.core.store.records import TrialRecord

AxisKind = Literal["float", "int", "categorical"]
#: grid lines per real axis of a contour, by default.
RESOLUTION = 40
#: the fewest trials (with both parameters and a score) a contour is drawn from.
MIN_CONTOUR_TRIALS = 3


@dataclass(frozen=True)
class Axis:
    """How to draw one parameter's axis.

    Attributes:
        name: the parameter's name.
        kind: "float", "int" or "categorical".
        log: whether the axis is log-scaled.
        choices: the categories in the spec's order (categorical axes only); points and
            grid lines of a contour stand at their positions 0, 1, ...
    """

    name: str
    kind: AxisKind
    log: bool
    choices: tuple[Any, ...] = ()


def axis_of(parameter: Parameter) -> Axis:
    """The axis of a free parameter."""
    if isinstance(parameter, CategoricalParameter):
        return Axis(parameter.name, "categorical", False, tuple(parameter.choices))
    if isinstance(parameter, OrdinalParameter) and parameter.scale == "rank":  # its order alone
        return Axis(parameter.name, "categorical", False, parameter.values)
    if isinstance(parameter, OrdinalParameter):  # numbers in their order, on their scale
        integral = all(isinstance(v, int) for v in parameter.values)
        return Axis(parameter.name, "int" if integral else "float", parameter.is_log)
    kind: AxisKind = "int" if isinstance(parameter, IntParameter) else "float"
    return Axis(parameter.name, kind, parameter.is_log)


@dataclass(frozen=True)
class ParameterSlice:
    """The score of every finished trial against one parameter (columns of equal length)."""

    axis: Axis
    trial_ids: tuple[int, ...]
    values: tuple[Any, ...]
    scores: tuple[float, ...]


def parameter_slices(trials: Sequence[TrialRecord], space: SearchSpace,
                     metric: str | None = None) -> list[ParameterSlice]:
    """One slice per free parameter, in the space's order, of the finished trials with a score.

    Args:
        trials: the stored trials of one search.
        space: its search space.
        metric: another reported metric to plot instead of the target.

    Trials without the parameter (a conditional one) are not in its slice.
    """
    scored = scored_trials(trials, metric)
    slices = []
    for parameter in space.free:
        kept = [(trial, score) for trial, score in scored if parameter.name in trial.params]
        slices.append(ParameterSlice(
            axis_of(parameter), tuple(t.trial_id for t, _ in kept),
            tuple(t.params[parameter.name] for t, _ in kept), tuple(score for _, score in kept)))
    return slices


def ranked_parameters(space: SearchSpace, importance: Mapping[str, float] | None = None) -> list[str]:
    """The varied parameters (more than one value), those in ``importance`` first in its order
    (as :func:`~hpnb.core.analysis.importance.parameter_importance` returns it), then the others
    in the space's order."""
    free = [p.name for p in space.free if p.grid_size() != 1]
    return list(dict.fromkeys([*(name for name in importance or {} if name in free), *free]))


def contour_pair(space: SearchSpace, importance: Mapping[str, float] | None = None) -> tuple[str, str] | None:
    """The two parameters to draw a contour of: the first two of :func:`ranked_parameters` (the two
    most important); None when the space varies fewer than two."""
    names = ranked_parameters(space, importance)
    return (names[0], names[1]) if len(names) >= 2 else None


@dataclass(frozen=True)
class ContourData:
    """Interpolated scores on a grid over two parameters, and the trials they come from.

    Attributes:
        x, y: the axes.
        x_grid, y_grid: grid lines in the parameters' units (a categorical axis: positions).
        z: ``z[j][i]`` is the score at ``(x_grid[i], y_grid[j])`` (plotly's ``Contour`` layout).
        trial_ids, x_values, y_values, scores: the trials, at their positions on the axes.
    """

    x: Axis
    y: Axis
    x_grid: tuple[float, ...]
    y_grid: tuple[float, ...]
    z: tuple[tuple[float, ...], ...]
    trial_ids: tuple[int, ...]
    x_values: tuple[float, ...]
    y_values: tuple[float, ...]
    scores: tuple[float, ...]


def contour_data(trials: Sequence[TrialRecord], space: SearchSpace, x: str, y: str, *,
                 metric: str | None = None, resolution: int = RESOLUTION) -> ContourData:
    """The contour of the score over parameters ``x`` and ``y`` (see the module's docstring).

    Raises:
        HpnbError: ``x`` or ``y`` not a free parameter of the space, or both the same.
        NotEnoughTrials: fewer than :data:`MIN_CONTOUR_TRIALS` finished trials with both and a score.
    """
    px, py = _free_parameter(space, x), _free_parameter(space, y)
    if x == y:
        raise HpnbError(f"contour: x and y are both {x!r}; choose two different parameters")
    points = []
    for trial, score in scored_trials(trials, metric):
        position = _position(px, trial.params), _position(py, trial.params)
        if position[0] is not None and position[1] is not None:
            points.append((trial.trial_id, position[0], position[1], score))
    if len(points) < MIN_CONTOUR_TRIALS:
        raise NotEnoughTrials("a contour", MIN_CONTOUR_TRIALS, len(points))
    ids, xs, ys, scores = (tuple(column) for column in zip(*points))
    x_grid, y_grid = _grid(px, xs, resolution), _grid(py, ys, resolution)
    z = _interpolate((px, py), (np.array(xs), np.array(ys)), np.array(scores), (x_grid, y_grid))
    return ContourData(axis_of(px), axis_of(py), tuple(x_grid.tolist()), tuple(y_grid.tolist()),
                       tuple(tuple(row) for row in z.tolist()), ids, xs, ys, scores)


def _free_parameter(space: SearchSpace, name: str) -> Parameter:
    free = [p.name for p in space.free]
    if name not in free:
        guess = closest(name, free)
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise HpnbError(f"contour: {name!r} is not a varied parameter of this search{hint} "
                        f"(varied: {', '.join(free[:20]) or 'none'})")
    return space[name]


def _position(parameter: Parameter, params: Mapping[str, Any]) -> float | None:
    """Where a trial's value of ``parameter`` stands on its axis; None when missing or unusable."""
    if parameter.name not in params:
        return None
    value = params[parameter.name]
    try:
        if isinstance(parameter, CategoricalParameter) or (
                isinstance(parameter, OrdinalParameter) and parameter.scale == "rank"):
            return float(parameter.index(value))
        number = float(value)
    except (ValueError, TypeError):
        return None
    usable = math.isfinite(number) and not (parameter.is_log and number <= 0)
    return number if usable else None


def _grid(parameter: Parameter, values: Sequence[float], resolution: int) -> np.ndarray:
    if isinstance(parameter, CategoricalParameter):
        return np.arange(len(parameter.choices), dtype=float)
    if isinstance(parameter, OrdinalParameter):  # its own values (or places): nothing runs between them
        return np.arange(len(parameter.values), dtype=float) if parameter.scale == "rank" \
            else np.array(parameter.values, dtype=float)
    low, high = min(values), max(values)
    if high <= low:
        return np.array([low])
    spaced = np.geomspace(low, high, resolution) if parameter.is_log else np.linspace(low, high, resolution)
    if isinstance(parameter, IntParameter):  # integer lines only: every value when they are few
        if (high - low) / parameter.step < resolution:
            return np.arange(low, high + parameter.step / 2, parameter.step, dtype=float)
        return np.unique(low + np.round((spaced - low) / parameter.step) * parameter.step)
    return spaced


def _unit(parameter: Parameter, positions: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``positions`` and ``grid`` scaled to [0, 1] over the grid's range (log axes in log)."""
    if parameter.is_log and not isinstance(parameter, CategoricalParameter):
        positions, grid = np.log(positions), np.log(grid)
    low, width = grid.min(), grid.max() - grid.min()
    width = width if width > 0 else 1.0
    return (positions - low) / width, (grid - low) / width


def _interpolate(parameters: tuple[Parameter, Parameter], positions: tuple[np.ndarray, np.ndarray],
                 scores: np.ndarray, grids: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Inverse-distance-weighted scores (power 2) at every grid node, shape (len(y), len(x)).

    A categorical axis is not a distance: a node of one category weighs only the trials of that
    category (a node whose category has none is NaN). One grid row at a time: memory grows with
    the trials times one row, not the whole grid.
    """
    ux, gx = _unit(parameters[0], positions[0], grids[0])
    uy, gy = _unit(parameters[1], positions[1], grids[1])
    x_cat, y_cat = (isinstance(p, CategoricalParameter) for p in parameters)
    z = np.empty((len(gy), len(gx)))
    for row, node_y in enumerate(gy):
        dx = (gx[:, None] - ux) ** 2
        dy = np.broadcast_to((node_y - uy) ** 2, dx.shape)
        same = np.ones(dx.shape, dtype=bool)
        if x_cat:
            same &= dx < 1e-18
            dx = np.zeros_like(dx)
        if y_cat:
            same &= dy < 1e-18
            dy = np.zeros_like(dy)
        squared = dx + dy
        exact = same & (squared < 1e-18)
        with np.errstate(divide="ignore"):  # other categories' trials at distance 0 get no weight
            weights = np.where(same, 1.0 / np.where(exact | ~same, 1.0, squared), 0.0)
        # a node on a trial takes that trial's score (the mean, if several trials share the node)
        on_trial = exact.any(axis=1)
        weights[on_trial] = exact[on_trial]
        total = weights.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            z[row] = np.where(total > 0, (weights * scores).sum(axis=1) / total, np.nan)
    return z
