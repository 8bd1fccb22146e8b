"""Search strategies, one per module, looked up by the name a spec uses.

Example:
    >>> strategy_class("random").name
    'random'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.core.lazy_classes import lazy_class

if TYPE_CHECKING:
    from hpnb.core.strategies.base import Strategy

#: strategy name -> "module:Class" below hpnb.core.strategies (imported on first use).
STRATEGIES: dict[str, str] = {
    "fixed": "fixed:FixedStrategy",
    "grid": "grid:GridStrategy",
    "range": "range:RangeStrategy",
    "random": "random:RandomStrategy",
    "sobol": "sobol:SobolStrategy",
    "tpe": "tpe:TPEStrategy",
    "cmaes": "cmaes:CMAESStrategy",
    "de": "de:DifferentialEvolutionStrategy",
    "pbt": "pbt:PopulationBasedTraining",
    "nsga2": "nsga2:NSGA2Strategy",
    "gp": "gp:GPStrategy",
    "auto": "auto:AutoStrategy",
    "bohb": "bohb:BOHBStrategy",
    "dehb": "dehb:DEHBStrategy",
}


def strategy_class(name: str) -> type[Strategy]:
    """The class implementing strategy ``name`` (a KeyError for unknown names)."""
    found: type[Strategy] = lazy_class("hpnb.core.strategies", STRATEGIES, name)
    return found


def multi_objective_strategies() -> tuple[str, ...]:
    """The strategies that can run a search with several objectives.

    Example:
        >>> "nsga2" in multi_objective_strategies(), "cmaes" in multi_objective_strategies()
        (True, False)
    """
    return tuple(name for name in STRATEGIES if strategy_class(name).multi_objective)
