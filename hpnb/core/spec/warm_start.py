"""Warm starts in a spec: ``enqueue:`` (configurations to run first) and ``warm_start:`` (a stored
search to learn from). The same concept as :mod:`hpnb.core.warm_start`, on the spec's side: this
module checks what the spec asks; that one reads the stored search's trials when the search starts.

- ``enqueue: [{lr: 0.01, layers: 2}, ...]``: these configurations are the search's first
  trials, in order. Each value is checked against its parameter; a parameter left out is
  drawn (by the model of tpe, cmaes and nsga2; at random for the other strategies); a
  conditional parameter may be given only where its condition holds (with the parameters
  it depends on given too). They count in the budget: without ``trials``, the budget is
  the strategy's own plus the enqueued ones.
- ``warm_start: {from: NAME}`` (or ``warm_start: NAME``): before suggesting anything, tpe,
  cmaes and nsga2 learn from the completed trials of the stored search NAME (see
  :mod:`hpnb.core.warm_start`: the store is read when the search starts).

Example:
    >>> from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=0.1),
    ...                      IntParameter("layers", 1, 4)))
    >>> parse_enqueue([{"lr": 0.01}, {"layers": 2, "lr": 0.001}], space)
    ({'lr': 0.01}, {'lr': 0.001, 'layers': 2})
    >>> parse_warm_start({"from": "mlp-v1"}, "tpe")
    'mlp-v1'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.space import SearchSpace
from hpnb.core.spec.values import MAX_TRIALS, as_mapping, check_experiment_name, check_keys
from hpnb.core.strategies import STRATEGIES, strategy_class

_ENQUEUE_FORM = "a list of configurations, e.g. [{lr: 0.01, layers: 2}]"


def parse_enqueue(value: Any, space: SearchSpace) -> tuple[dict[str, Any], ...]:
    """The configurations of ``enqueue:``, each checked against ``space`` (ordered as the space)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SpecError("enqueue", "must be a list of configurations", value=value, allowed=_ENQUEUE_FORM)
    if len(value) > MAX_TRIALS:
        raise SpecError("enqueue", f"has {len(value):,} configurations, more than the limit of "
                        f"{MAX_TRIALS:,} trials (MAX_TRIALS)", allowed=f"at most {MAX_TRIALS:,}")
    return tuple(_configuration(item, f"enqueue[{index}]", space) for index, item in enumerate(value))


def _configuration(item: Any, path: str, space: SearchSpace) -> dict[str, Any]:
    config = dict(as_mapping(item, path, allowed="a mapping of parameter: value"))
    for name, given in config.items():
        if name not in space.names:
            raise SpecError(f"{path}.{name}", "is not a parameter of the space", value=name,
                            allowed=", ".join(space.names), suggestion=closest(name, space.names))
        parameter = space[name]
        if not parameter.contains(given):
            raise SpecError(f"{path}.{name}", "is not a value the parameter can take", value=given,
                            allowed=parameter.describe())
    for name in config:
        condition = space.condition(name)
        if condition is not None and not condition.holds(config):
            raise SpecError(f"{path}.{name}", f"is inactive in this configuration: {name} is used only "
                            f"{condition.describe()}; give that in the same configuration",
                            value=config[name])
    return {name: config[name] for name in space.names if name in config}


def parse_warm_start(value: Any, strategy: str) -> str | None:
    """The name of the search ``warm_start:`` learns from, or None; refused for a strategy that
    does not learn from another search's trials."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        value = as_mapping(value, "warm_start", allowed="{from: NAME}")
        check_keys(value, "warm_start", ("from",))
        if "from" not in value:
            raise SpecError("warm_start.from", "is missing: name the stored search to learn from",
                            allowed="{from: NAME}")
        name, path = value["from"], "warm_start.from"
    else:
        name, path = value, "warm_start"
    name = check_experiment_name(name, path)
    learners = [n for n in STRATEGIES if strategy_class(n).learns_from_prior]
    if strategy not in learners:
        raise SpecError("warm_start", f"the {strategy} strategy does not learn from another search's trials",
                        value=name, allowed=f"strategy: {', '.join(learners)}")
    return name
