"""Conditional parameters: ``when:`` says in which configurations a parameter is active.

``momentum: {min: 0.5, max: 0.99, when: {optimizer: sgd}}`` makes ``momentum`` active
only when ``optimizer`` is ``sgd``; ``when: {optimizer: [sgd, rmsprop]}`` allows a list
of values, and conditions on several parameters must all hold. A condition may name a
parameter that is itself conditional (nested choices): it holds only while that
parameter is active and takes one of the listed values. An inactive parameter is left
out of the configuration altogether.

Conditions name categorical, integer or fixed parameters, with values those
parameters can take; a continuous parameter is refused (a condition on it would hold
with probability zero, or on float noise). Cycles are refused too.

The grid of a conditional space is enumerated by *branches*: each assignment of the
parameters that conditions name (as far as they are active) is a branch, and the other
active parameters of a branch vary over their whole grid, the last one fastest. The
count is exact: a point per valid combination, none repeated.

Example:
    >>> from hpnb.core.space import CategoricalParameter, FloatParameter, SearchSpace
    >>> space = SearchSpace((CategoricalParameter("optimizer", ("sgd", "adam")),
    ...                      FloatParameter("momentum", low=0.5, high=0.7, step=0.2)),
    ...                     conditions=(Condition("momentum", (("optimizer", ("sgd",)),)),))
    >>> space.grid_size(), [sorted(c.items()) for c in space.iter_grid()]
    (3, [[('momentum', 0.5), ('optimizer', 'sgd')], [('momentum', 0.7), ('optimizer', 'sgd')], \
[('optimizer', 'adam')]])
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.float_parameter import FloatParameter
from hpnb.core.parameter_kinds import Parameter

_SCALARS = (str, int, float, bool, type(None))
_FEWER = "fewer values per parameter, larger steps, or a sampling strategy"


def same_value(a: Any, b: Any) -> bool:
    """``a == b``, except that a boolean never equals a number (YAML's ``true`` is not 1)."""
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


@dataclass(frozen=True)
class Condition:
    """``parameter`` is active when every ``(name, values)`` holds: ``name`` is active and
    takes one of ``values``."""

    parameter: str
    requires: tuple[tuple[str, tuple[Any, ...]], ...]

    @property
    def parents(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.requires)

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether the condition holds for ``values`` (the active values decided so far)."""
        return all(name in values and any(same_value(values[name], v) for v in allowed)
                   for name, allowed in self.requires)

    def describe(self) -> str:
        """One line, e.g. ``when optimizer: sgd, nesterov: [true, false]``."""
        def text(value: Any) -> str:
            return str(value).lower() if isinstance(value, bool) or value is None else str(value)

        return "when " + ", ".join(
            f"{name}: {text(values[0])}" if len(values) == 1 else f"{name}: [{', '.join(map(text, values))}]"
            for name, values in self.requires)

    def to_dict(self) -> dict[str, Any]:
        """The ``when:`` mapping: one value as itself, several as a list."""
        return {name: values[0] if len(values) == 1 else list(values) for name, values in self.requires}


def _path(parameter: str, parent: str | None = None) -> str:
    return f"parameters.{parameter}.when" + ("" if parent is None else f".{parent}")


def parse_when(parameter: str, data: Any) -> Condition:
    """The condition of ``when: data`` on ``parameter``, its shape checked (not its names)."""
    if not isinstance(data, Mapping) or not data:
        raise SpecError(_path(parameter), "must be a mapping of parameter: value (or [values])",
                        value=data,
                        allowed="e.g. when: {optimizer: sgd} or when: {optimizer: [sgd, rmsprop]}")
    requires = []
    for name, wanted in data.items():
        name = str(name)
        if name == parameter:
            raise SpecError(_path(parameter, name), "a parameter cannot be conditional on itself",
                            value=name, allowed="another parameter of the space")
        values = tuple(wanted) if isinstance(wanted, (list, tuple)) else (wanted,)
        if not values:
            raise SpecError(_path(parameter, name), "needs at least one value", value=wanted,
                            allowed="a value or a non-empty list of values")
        for value in values:
            if not isinstance(value, _SCALARS) or (isinstance(value, float) and not math.isfinite(value)):
                raise SpecError(_path(parameter, name), "must be a value or a list of values",
                                value=value, allowed="strings, numbers or booleans")
        requires.append((name, values))
    return Condition(parameter, tuple(requires))


def _allowed(p: Parameter) -> str:
    values = p.grid_values() or ()
    return ", ".join(map(str, values[:20])) + (", ..." if len(values) > 20 else "")


def _key(value: Any) -> tuple[bool, Any]:
    """A hashable stand-in for a YAML scalar under :func:`same_value`."""
    return isinstance(value, bool), value


def _can_take(p: Parameter, value: Any, keys: set[tuple[bool, Any]] | None) -> bool:
    if keys is not None:
        return _key(value) in keys
    return not isinstance(value, bool) and p.contains(value)


def check_conditions(parameters: Sequence[Parameter], conditions: Sequence[Condition]) -> None:
    """Refuse a condition on an unknown, continuous or own parameter, a value the parameter
    cannot take, two conditions on one parameter, and cycles."""
    by_name = {p.name: p for p in parameters}
    seen: set[str] = set()
    for condition in conditions:
        if condition.parameter not in by_name:
            raise SpecError(_path(condition.parameter), "is the condition of an unknown parameter",
                            value=condition.parameter, allowed=", ".join(by_name))
        if condition.parameter in seen:
            raise SpecError(_path(condition.parameter), "is given twice", allowed="one when: per parameter")
        seen.add(condition.parameter)
        for name, values in condition.requires:
            path = _path(condition.parameter, name)
            if name == condition.parameter:
                raise SpecError(path, "a parameter cannot be conditional on itself", value=name,
                                allowed="another parameter of the space")
            parent = by_name.get(name)
            if parent is None:
                others = [n for n in by_name if n != condition.parameter]
                raise SpecError(path, "names an unknown parameter", value=name, allowed=", ".join(others),
                                suggestion=closest(name, others))
            if isinstance(parent, FloatParameter):
                raise SpecError(path, "a condition cannot name a continuous parameter", value=name,
                                allowed="a categorical, integer or fixed parameter")
            finite = parent.is_fixed or hasattr(parent, "choices")
            keys = {_key(choice) for choice in parent.grid_values() or ()} if finite else None
            for value in values:
                if not _can_take(parent, value, keys):
                    raise SpecError(path, f"is not a value {name} can take", value=value,
                                    allowed=_allowed(parent))
    evaluation_order([p.name for p in parameters], conditions)


def evaluation_order(names: Sequence[str], conditions: Sequence[Condition]) -> tuple[str, ...]:
    """The names with every parameter after those its condition names (stable otherwise).

    Raises:
        SpecError: at the first condition of a cycle, the cycle spelt out.
    """
    parents = {c.parameter: c.parents for c in conditions}
    order: list[str] = []
    state: dict[str, int] = {}  # 1: being visited, 2: placed
    for start in names:
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(parents.get(start, ())))]
        if state.get(start):
            continue
        state[start] = 1
        while stack:
            name, pending = stack[-1]
            parent = next(pending, None)
            if parent is None:
                stack.pop()
                state[name] = 2
                order.append(name)
            elif state.get(parent) == 1:
                chain = [n for n, _ in stack]
                cycle = [*chain[chain.index(parent):], parent]
                raise SpecError(_path(name, parent), "the conditions form a cycle", value=" -> ".join(cycle),
                                allowed="conditions that do not lead back to the parameter")
            elif not state.get(parent):
                state[parent] = 1
                stack.append((parent, iter(parents.get(parent, ()))))
    return tuple(order)


def active_values(order: Sequence[str], conditions: Mapping[str, Condition],
                  values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the parameters that are inactive (decided in ``order``)."""
    kept: dict[str, Any] = {}
    for name in order:
        condition = conditions.get(name)
        if name in values and (condition is None or condition.holds(kept)):
            kept[name] = values[name]
    return kept


class Branches:
    """The grid of a space, branch by branch; point ``k`` is computed from ``k``.

    Raises:
        SpecError: more than ``cap`` branches (each is at least one point).
    """

    def __init__(self, parameters: Sequence[Parameter], conditions: Sequence[Condition],
                 cap: int) -> None:
        by_condition = {c.parameter: c for c in conditions}
        names = [p.name for p in parameters]
        order = evaluation_order(names, conditions)
        named = {name for c in conditions for name in c.parents}
        self._parameters = {p.name: p for p in parameters}
        self._axes: dict[str, tuple[Any, ...]] = {}
        assignments: list[dict[str, Any]] = [{}]
        for name in (n for n in order if n in named):
            grown: list[dict[str, Any]] = []
            for partial in assignments:
                condition = by_condition.get(name)
                if condition is not None and not condition.holds(partial):
                    grown.append(partial)
                    continue
                grown.extend({**partial, name: value} for value in self._axis(name))
                if len(grown) > cap:  # each branch is at least one point
                    raise SpecError("strategy", f"the grid has more than {cap:,} points", allowed=_FEWER)
            assignments = grown
        self._names = names
        self._branches: list[tuple[dict[str, Any], list[str]]] = []
        self._starts: list[int] = []
        self.size = 0
        for assignment in assignments:
            active = active_values(order, by_condition, {**dict.fromkeys(names), **assignment})
            free = [n for n in names if n in active and n not in named]
            self._branches.append((assignment, free))
            self._starts.append(self.size)
            self.size += math.prod(self._parameters[n].grid_size() or 0 for n in free)

    def _axis(self, name: str) -> tuple[Any, ...]:
        if name not in self._axes:
            self._axes[name] = self._parameters[name].grid_values() or ()
        return self._axes[name]

    def point(self, index: int) -> dict[str, Any]:
        """Grid point ``index`` (``0 <= index < size``), in the order of the space."""
        branch = bisect.bisect_right(self._starts, index) - 1
        assignment, free = self._branches[branch]
        position = index - self._starts[branch]
        values = dict(assignment)
        for name in reversed(free):
            axis = self._axis(name)
            position, k = divmod(position, len(axis))
            values[name] = axis[k]
        return {name: values[name] for name in self._names if name in values}
