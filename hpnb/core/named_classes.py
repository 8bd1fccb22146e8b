"""The classes a spec names (its strategies and early-stopping rules), by the name it uses: one
module per class, imported on first use so that a cold cell pays only for what it runs.

Example:
    >>> strategy_class("random").name, stopping_rule_class("none").name
    ('random', 'none')
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

#: strategy name -> "module:Class" below hpnb.core.strategies.
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
    "evolution": "evolution:EvolutionStrategy",
    "enas": "enas:ENASStrategy",
}

#: early-stopping rule name -> "module:Class" below hpnb.core.early_stopping.
STOPPING_RULES: dict[str, str] = {
    "none": "base:NoStopping",
    "median": "median:MedianStopping",
    "asha": "asha:ASHA",
    "hyperband": "hyperband:Hyperband",
}


# Typed as Any here: the packages hpnb.core.strategies and hpnb.core.early_stopping give the same
# functions with their base classes' types, so that this module imports neither base (which use it).


def strategy_class(name: str) -> Any:
    """The class implementing strategy ``name`` (a KeyError for unknown names)."""
    return _lazy_class("hpnb.core.strategies", STRATEGIES, name)


def stopping_rule_class(name: str) -> Any:
    """The class implementing early-stopping rule ``name`` (a KeyError for unknown names)."""
    return _lazy_class("hpnb.core.early_stopping", STOPPING_RULES, name)


def multi_objective_strategies() -> tuple[str, ...]:
    """The strategies that can run a search with several objectives.

    Example:
        >>> "nsga2" in multi_objective_strategies(), "cmaes" in multi_objective_strategies()
        (True, False)
    """
    return tuple(name for name in STRATEGIES if strategy_class(name).multi_objective)


def _lazy_class(package: str, registry: Mapping[str, str], name: str) -> Any:
    """The class ``registry[name]`` names (``"module:Class"`` below ``package``)."""
    module, cls = registry[name].split(":")
    return getattr(importlib.import_module(f"{package}.{module}"), cls)
