"""Early-stopping rules, one per module (the names a spec uses: ``hpnb.core.named_classes``)."""

from __future__ import annotations

from hpnb.core.named_classes import STOPPING_RULES, stopping_rule_class

__all__ = ["STOPPING_RULES", "stopping_rule_class"]
