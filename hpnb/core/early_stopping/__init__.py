"""Early-stopping rules, one per module (the names a spec uses: ``hpnb.core.named_classes``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.core import named_classes
from hpnb.core.named_classes import STOPPING_RULES

if TYPE_CHECKING:
    from hpnb.core.early_stopping.base import StoppingRule

__all__ = ["STOPPING_RULES", "stopping_rule_class"]


def stopping_rule_class(name: str) -> type[StoppingRule]:
    """The class implementing early-stopping rule ``name`` (a KeyError for unknown names)."""
    found: type[StoppingRule] = named_classes.stopping_rule_class(name)
    return found
