"""Fixed (manual) search: the space's own values, or an explicit list of configurations.

Without options, one trial runs with every parameter at its center: fixed
values, defaults, or the middle of a range (:meth:`SearchSpace.center`). With
``configs: [{lr: 0.01}, {lr: 0.1, layers: 3}]`` one trial runs per entry, in
order; names an entry leaves out take their center value.

Example:
    >>> from hpnb.core.space import IntParameter, SearchSpace
    >>> space = SearchSpace((IntParameter("layers", 1, 4, default=2),))
    >>> strategy = FixedStrategy(space, configs=[{"layers": 1}, {}])
    >>> [strategy.suggest(i).params for i in range(2)], strategy.suggest(2)
    ([{'layers': 1}, {'layers': 2}], None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.space import SearchSpace
from hpnb.core.strategies._sequence import SequenceStrategy


def resolve_configs(space: SearchSpace, configs: Any) -> list[dict[str, Any]]:
    """Validate user ``configs`` against ``space`` and complete them from its center.

    Raises:
        SpecError: at ``strategy.configs[i].NAME`` for an unknown name or a value outside the space.
    """
    if isinstance(configs, (str, Mapping)) or not isinstance(configs, Sequence) or not configs:
        raise SpecError("strategy.configs", "must be a non-empty list of configurations",
                        value=configs, allowed="a list of mappings such as [{lr: 0.01}]")
    resolved = []
    for i, config in enumerate(configs):
        path = f"strategy.configs[{i}]"
        if not isinstance(config, Mapping):
            raise SpecError(path, "must be a mapping of parameter names to values", value=config)
        for name, value in config.items():
            if name not in space.names:
                raise SpecError(f"{path}.{name}", "is not a parameter of the space",
                                allowed=space.names, suggestion=closest(str(name), space.names))
            parameter = space[name]
            if not parameter.contains(value):
                raise SpecError(f"{path}.{name}", "is not a value of the parameter", value=value,
                                allowed=parameter.describe())
        complete = space.completed(config)
        for name in config:
            if name not in complete:
                raise SpecError(f"{path}.{name}", "is inactive here: its when: does not hold",
                                value=config[name], allowed=", ".join(complete))
        resolved.append(complete)
    return resolved


class FixedStrategy(SequenceStrategy):
    """One trial at the space's center, or one per configuration of option ``configs``."""

    name = "fixed"
    options = ("configs",)

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        configs = options.get("configs")
        self._configs = [space.center()] if configs is None else resolve_configs(space, configs)

    def count(self) -> int:
        return len(self._configs)

    def config_at(self, index: int) -> dict[str, Any]:
        return self._configs[index]
