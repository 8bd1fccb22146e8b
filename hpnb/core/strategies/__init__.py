"""Search strategies, one per module (the names a spec uses: ``hpnb.core.named_classes``).

Example:
    >>> strategy_class("random").name
    'random'
"""

from __future__ import annotations

from hpnb.core.named_classes import STRATEGIES, strategy_class

__all__ = ["STRATEGIES", "multi_objective_strategies", "strategy_class"]


def multi_objective_strategies() -> tuple[str, ...]:
    """The strategies that can run a search with several objectives.

    Example:
        >>> "nsga2" in multi_objective_strategies(), "cmaes" in multi_objective_strategies()
        (True, False)
    """
    return tuple(name for name in STRATEGIES if strategy_class(name).multi_objective)
