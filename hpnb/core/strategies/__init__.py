"""Search strategies, one per module (the names a spec uses: ``hpnb.core.named_classes``).

Example:
    >>> strategy_class("random").name
    'random'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.core import named_classes
from hpnb.core.named_classes import STRATEGIES, multi_objective_strategies

if TYPE_CHECKING:
    from hpnb.core.strategies.base import Strategy

__all__ = ["STRATEGIES", "multi_objective_strategies", "strategy_class"]


def strategy_class(name: str) -> type[Strategy]:
    """The class implementing strategy ``name`` (a KeyError for unknown names)."""
    found: type[Strategy] = named_classes.strategy_class(name)
    return found
