"""Every early-stopping rule runs the shared scheduler suite."""

from __future__ import annotations

from typing import Any

from hpnb.core.early_stopping import scheduler_class
from hpnb.core.early_stopping.base import Mode, Scheduler
from hpnb.testing.scheduler_suite import SchedulerSuite


class TestNoStopping(SchedulerSuite):
    stops_trials = False

    def make(self, mode: Mode, **options: Any) -> Scheduler:
        return scheduler_class("none")(mode=mode, **options)


class TestMedianBest(SchedulerSuite):
    def make(self, mode: Mode, **options: Any) -> Scheduler:
        return scheduler_class("median")(mode=mode, grace=self.grace, **options)


class TestMedianAverage(SchedulerSuite):
    grace = 5

    def make(self, mode: Mode, **options: Any) -> Scheduler:
        return scheduler_class("median")(mode=mode, grace=self.grace, use="average", min_trials=2,
                                         **options)


class TestAsha(SchedulerSuite):
    def make(self, mode: Mode, **options: Any) -> Scheduler:
        return scheduler_class("asha")(mode=mode, grace=self.grace, reduction=2, **options)


class TestHyperbandWeighted(SchedulerSuite):
    grace = 2

    def make(self, mode: Mode, **options: Any) -> Scheduler:
        options.setdefault("max_t", 30)
        return scheduler_class("hyperband")(mode=mode, grace=self.grace, seed=3, **options)


class TestHyperbandRoundRobin(SchedulerSuite):
    grace = 1

    def make(self, mode: Mode, **options: Any) -> Scheduler:
        return scheduler_class("hyperband")(mode=mode, grace=self.grace, brackets=2,
                                            assignment="round_robin", **options)
