"""Every early-stopping rule runs the shared scheduler suite."""

from __future__ import annotations

from typing import Any

from hpnb.core.early_stopping import stopping_rule_class
from hpnb.core.early_stopping.base import Mode, StoppingRule
from hpnb.testing.stopping_rule_suite import StoppingRuleSuite


class TestNoStopping(StoppingRuleSuite):
    stops_trials = False

    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        return stopping_rule_class("none")(mode=mode, **options)


class TestMedianBest(StoppingRuleSuite):
    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        return stopping_rule_class("median")(mode=mode, grace=self.grace, **options)


class TestMedianAverage(StoppingRuleSuite):
    grace = 5

    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        return stopping_rule_class("median")(mode=mode, grace=self.grace, use="average", min_trials=2,
                                         **options)


class TestAsha(StoppingRuleSuite):
    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        return stopping_rule_class("asha")(mode=mode, grace=self.grace, reduction=2, **options)


class TestHyperbandWeighted(StoppingRuleSuite):
    grace = 2

    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        options.setdefault("max_t", 30)
        return stopping_rule_class("hyperband")(mode=mode, grace=self.grace, seed=3, **options)


class TestHyperbandRoundRobin(StoppingRuleSuite):
    grace = 1

    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        return stopping_rule_class("hyperband")(mode=mode, grace=self.grace, brackets=2,
                                            assignment="round_robin", **options)
