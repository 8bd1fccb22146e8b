"""The classes a spec names (its strategies and early-stopping rules), by the name it uses: one
module per class, imported on first use so that a cold cell pays only for what it runs.

Example:
    >>> strategy_class("random").name, stopping_rule_class("none").name
    ('random', 'none')
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hpnb.core.early_stopping.base import StoppingRule
    from hpnb.core.strategies.base import Strategy

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
}

#: early-stopping rule name -> "module:Class" below hpnb.core.early_stopping.
STOPPING_RULES: dict[str, str] = {
    "none": "base:NoStopping",
    "median": "median:MedianStopping",
    "asha": "asha:ASHA",
    "hyperband": "hyperband:Hyperband",
}


def strategy_class(name: str) -> type[Strategy]:
    """The class implementing strategy ``name`` (a KeyError for unknown names)."""
    found: type[Strategy] = _lazy_class("hpnb.core.strategies", STRATEGIES, name)
    return found


def stopping_rule_class(name: str) -> type[StoppingRule]:
    """The class implementing early-stopping rule ``name`` (a KeyError for unknown names)."""
    found: type[StoppingRule] = _lazy_class("hpnb.core.early_stopping", STOPPING_RULES, name)
    return found


def _lazy_class(package: str, registry: Mapping[str, str], name: str) -> Any:
    """The class ``registry[name]`` names (``"module:Class"`` below ``package``)."""
    module, cls = registry[name].split(":")
    return getattr(importlib.import_module(f"{package}.{module}"), cls)
