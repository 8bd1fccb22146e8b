"""Early-stopping rules, one per module, looked up by the name a spec uses.

Example:
    >>> stopping_rule_class("none").name
    'none'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.core.lazy_classes import lazy_class

if TYPE_CHECKING:
    from hpnb.core.early_stopping.base import StoppingRule

#: rule name -> "module:Class" below hpnb.core.early_stopping (imported on first use).
STOPPING_RULES: dict[str, str] = {
    "none": "base:NoStopping",
    "median": "median:MedianStopping",
    "asha": "asha:ASHA",
    "hyperband": "hyperband:Hyperband",
}


def stopping_rule_class(name: str) -> type[StoppingRule]:
    """The class implementing early-stopping rule ``name`` (a KeyError for unknown names)."""
    found: type[StoppingRule] = lazy_class("hpnb.core.early_stopping", STOPPING_RULES, name)
    return found
