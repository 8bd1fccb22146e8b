"""Range search: sweep one parameter over its range while the others stay put.

This is the one-parameter sweep of a ``[a, b]`` range with a ``step``: every
value of the swept parameter is tried once, every other parameter held at its
center (its fixed value, its default, or the middle of its range).

With several ranged (non-fixed) parameters the search is one-factor-at-a-time:
each one is swept in the order the spec declares them while all the others
stay at their center. The center point appears in several sweeps when it is
on their grids; it runs only once. Option ``parameter: NAME`` sweeps that
parameter alone.

A continuous parameter needs a ``step`` (and bounds) to be swept: without one
it has no finite list of values and the spec is refused at
``parameters.NAME.step``. A space without any ranged parameter is refused too.
In a conditional space each sweep leaves out the parameters inactive in it; a
parameter inactive at the center is not swept (its points would all be the center).

Example:
    >>> from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("lr", low=0.1, high=0.3, step=0.1),
    ...                      IntParameter("layers", 1, 3)))
    >>> sweep = RangeStrategy(space)
    >>> [tuple(sweep.suggest(i).params.values()) for i in range(sweep.max_trials())]
    [(0.1, 2), (0.2, 2), (0.3, 2), (0.2, 1), (0.2, 3)]
"""

from __future__ import annotations

from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.space import DEFAULT_GRID_CAP, Parameter, SearchSpace
from hpnb.core.strategies._sequence import SequenceStrategy


def _swept_parameters(space: SearchSpace, name: Any) -> tuple[Parameter, ...]:
    if name is None:
        if not space.free:
            raise SpecError("parameters", "a range search needs at least one parameter that varies",
                            allowed="a parameter with a range [min, max] and a step, or a list")
        return space.free
    if name not in space.names:
        raise SpecError("strategy.parameter", "is not a parameter of the space", value=name,
                        allowed=space.names, suggestion=closest(str(name), space.names))
    if space[name].is_fixed:
        raise SpecError("strategy.parameter", "names a fixed parameter; there is nothing to sweep",
                        value=name, allowed=[p.name for p in space.free])
    return (space[name],)


def _sweep_values(p: Parameter) -> tuple[Any, ...]:
    values = p.grid_values()
    if values is None:
        raise SpecError(f"parameters.{p.name}.step", "a range search needs a step (and min and max) "
                        "for every continuous parameter it sweeps",
                        allowed="add step:, or use strategy random, sobol or tpe")
    return values


def sweep_points(space: SearchSpace, parameter: str | None = None) -> list[tuple[str, Any]]:
    """The (parameter, value) of each configuration of a one-factor-at-a-time sweep.

    Configuration ``(name, value)`` is the space's center with ``name`` set to
    ``value``; the center itself comes once. The sweep is counted before any
    value is listed.

    Raises:
        SpecError: a swept parameter has no finite list of values, the sweep is
            longer than the cap, or nothing varies.
    """
    swept = _swept_parameters(space, parameter)
    for p in swept:
        if p.grid_size() is None:
            _sweep_values(p)
    total = sum(p.grid_size() or 0 for p in swept)
    if total > DEFAULT_GRID_CAP:
        largest = max(swept, key=lambda p: p.grid_size() or 0)
        raise SpecError(f"parameters.{largest.name}.step",
                        f"a sweep of {total:,} values is more than the cap of {DEFAULT_GRID_CAP:,}",
                        allowed="larger steps, narrower ranges or fewer swept parameters")
    center = space.center(complete=True)
    points: list[tuple[str, Any]] = []
    center_seen = False
    for p in swept:
        for value in _sweep_values(p):
            if repr(value) == repr(center[p.name]):
                if center_seen:
                    continue
                center_seen = True
            points.append((p.name, value))
    return points


class RangeStrategy(SequenceStrategy):
    """One-factor-at-a-time sweeps of the ranged parameters (or of option ``parameter`` only)."""

    name = "range"
    options = ("parameter",)

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        self._center = space.center(complete=True)
        self._points = sweep_points(space, options.get("parameter"))
        if space.is_conditional:  # a parameter inactive at the center repeats the center: once
            configs = {repr(self.config_at(i)): point for i, point in enumerate(self._points)}
            self._points = list(configs.values())

    def count(self) -> int:
        return len(self._points)

    def config_at(self, index: int) -> dict[str, Any]:
        name, value = self._points[index]
        return self.space.active({**self._center, name: value})
