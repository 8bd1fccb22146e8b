"""A trial that spans several workers: ``resources.per_trial.workers`` and ``procs_per_worker``.

A trial of ``workers: N, procs_per_worker: P`` runs N x P ranks, N workers each running P of them.
``workers`` may also name a parameter (``workers: {parameter: nodes}``) whose value sets each
trial's own number of workers. The counts themselves and the parameter against the search space
are checked here; :mod:`hpnb.core.spec.resources` checks them against a local cluster's size.

Example:
    >>> parse_workers(2, "resources.per_trial.workers"), parse_workers({"parameter": "nodes"}, "w")
    ((2, None), (1, 'nodes'))
    >>> parse_procs_per_worker("4", "resources.per_trial.procs_per_worker")
    4
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.ordinal_parameter import OrdinalParameter
from hpnb.core.parameter_kinds import CategoricalParameter, FixedParameter, IntParameter, Parameter
from hpnb.core.spec.values import MAX_PARALLEL, as_text, check_keys, number_from_text

if TYPE_CHECKING:
    from hpnb.core.space import SearchSpace

#: the keys of ``per_trial`` that count workers and ranks (never names of resources).
RESERVED = ("workers", "procs_per_worker")
#: spellings of the reserved keys that other tools use, refused with the key hpnb reads.
ALIASES = {"worker": "workers", "num_workers": "workers", "nodes": "workers", "nnodes": "workers",
           "num_procs_per_worker": "procs_per_worker", "nproc_per_node": "procs_per_worker",
           "nprocPerNode": "procs_per_worker", "procs": "procs_per_worker"}
#: the most workers one trial may span.
MAX_TRIAL_WORKERS = MAX_PARALLEL
#: the most processes a trial may run on one worker.
MAX_PROCS_PER_WORKER = 1024
_WORKERS_ALLOWED = "a whole number of workers >= 1, or {parameter: NAME} to take it from a parameter"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_PROCS_ALLOWED = "a whole number of processes >= 1 (ranks on each of the trial's workers)"


def _count(value: Any, path: str, allowed: str, maximum: int, suggestion: str | None = None) -> int:
    """A whole number from 1 to ``maximum`` (also written as a string), else one SpecError."""
    number = number_from_text(value) if isinstance(value, str) else value
    if isinstance(value, bool) or not isinstance(number, (int, float)):
        raise SpecError(path, "must be a whole number", value=value, allowed=allowed, suggestion=suggestion)
    if not math.isfinite(number) or number != math.floor(number):
        raise SpecError(path, "must be a whole number", value=value, allowed=allowed)
    if number < 1:
        raise SpecError(path, "must be at least 1", value=value, allowed=allowed)
    if number > maximum:
        raise SpecError(path, f"is more than the limit of {maximum:,}", value=value, allowed=allowed)
    return int(number)


def parse_workers(value: Any, path: str) -> tuple[int, str | None]:
    """``per_trial.workers``: ``(count, None)``, or ``(1, NAME)`` for ``{parameter: NAME}``."""
    if isinstance(value, Mapping):
        check_keys(value, path, ("parameter",))
        if "parameter" not in value:
            raise SpecError(f"{path}.parameter", "is missing", allowed="{parameter: NAME}, a parameter "
                                                                       "of parameters:")
        return 1, as_text(value["parameter"], f"{path}.parameter", allowed="the name of a parameter")
    named = value.strip() if isinstance(value, str) and _NAME.match(value.strip()) else None
    return _count(value, path, _WORKERS_ALLOWED, MAX_TRIAL_WORKERS,
                  suggestion=None if named is None else f"{{parameter: {named}}}"), None


def parse_procs_per_worker(value: Any, path: str) -> int:
    """``per_trial.procs_per_worker``: a whole number >= 1."""
    return _count(value, path, _PROCS_ALLOWED, MAX_PROCS_PER_WORKER)


def worker_counts(parameter: Parameter) -> tuple[int, ...] | None:
    """The smallest and largest value of ``parameter`` when every value it takes is a whole
    number >= 1, else None.

    Example:
        >>> worker_counts(IntParameter("nodes", 1, 8, step=3))
        (1, 7)
    """
    if isinstance(parameter, IntParameter):
        top = parameter.low + (parameter.count - 1) * parameter.step
        return (parameter.low, top) if parameter.low >= 1 else None
    if isinstance(parameter, FixedParameter):
        values: tuple[Any, ...] = (parameter.value,)
    elif isinstance(parameter, OrdinalParameter):
        values = parameter.values
    elif isinstance(parameter, CategoricalParameter):
        values = parameter.choices
    else:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
        return None
    return min(values), max(values)


def check_workers_parameter(name: str, space: SearchSpace, path: str) -> int:
    """Check ``workers: {parameter: NAME}`` against the search space; the most workers a trial
    may then ask.

    Raises:
        SpecError: the parameter is not in the space, is conditional, or may take a value that
            is not a whole number >= 1; the message names both fields.
    """
    where = f"{path}.workers.parameter"
    if name not in space.names:
        raise SpecError(where, "names no parameter of parameters:", value=name,
                        allowed=", ".join(space.names) or "a parameter declared in parameters:",
                        suggestion=closest(name, space.names))
    if space.condition(name) is not None:
        raise SpecError(where, f"parameters.{name} has a when: condition, so some trials have no "
                               "number of workers", value=name, allowed="a parameter every trial has")
    counts = worker_counts(space[name])
    if counts is None:
        raise SpecError(where, f"parameters.{name} ({space[name].describe()}) may take a value that is "
                               "not a number of workers", value=name,
                        allowed="a parameter whose every value is a whole number >= 1: "
                                "{type: int, min: 1, max: N} or a list such as [1, 2, 4]")
    return counts[1]
