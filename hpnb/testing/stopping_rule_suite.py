"""The shared suite every early-stopping rule runs.

Subclass :class:`StoppingRuleSuite` in a test module, name the class ``Test...`` and
implement :meth:`StoppingRuleSuite.make`; pytest then runs every ``test_`` method on
the rule. The workload is a seeded, interleaved stream of results from a dozen
trials with noisy learning curves (one of them diverging to NaN), fed the way the
runner feeds it: in arrival order, and a stopped trial reports nothing more.

Example:
    >>> from hpnb.core.early_stopping.asha import ASHA
    >>> class TestAsha(StoppingRuleSuite):
    ...     def make(self, mode, **options):
    ...         return ASHA(mode=mode, grace=self.grace, reduction=2, **options)
    >>> TestAsha().test_min_max_symmetry()
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from hpnb.core.early_stopping.base import Decision, Mode, StoppingRule
from hpnb.core.trial import TrialState

Result = tuple[int, int, float]


def make_workload(seed: int = 0, trials: int = 12, steps: int = 30) -> list[Result]:
    """Interleaved ``(trial_id, step, value)`` results of decreasing, noisy curves (steps 1..steps)."""
    rng = np.random.default_rng(seed)
    curves = {}
    for tid in range(trials):
        floor, speed = rng.uniform(0.1, 1.0), rng.uniform(0.05, 0.5)
        curve = floor + np.exp(-speed * np.arange(1, steps + 1)) + rng.normal(0, 0.02, steps)
        curves[tid] = [float(v) for v in curve]
    curves[trials - 1][5:] = [math.nan] * (steps - 5)
    position = dict.fromkeys(curves, 0)
    stream: list[Result] = []
    while position:
        tid = int(rng.choice(sorted(position)))
        stream.append((tid, position[tid] + 1, curves[tid][position[tid]]))
        position[tid] += 1
        if position[tid] == steps:
            del position[tid]
    return stream


def drive(stopping_rule: StoppingRule, stream: Sequence[Result], negate: bool = False,
          stopped: set[int] | None = None) -> list[tuple[int, int, Decision]]:
    """Feed ``stream`` as the runner would; the decisions taken, as ``(trial, step, decision)``."""
    stopped = set() if stopped is None else stopped
    decisions = []
    for tid, step, value in stream:
        if tid in stopped:
            continue
        decision = stopping_rule.on_result(tid, step, -value if negate else value)
        decisions.append((tid, step, decision))
        if decision is Decision.STOP:
            stopped.add(tid)
            stopping_rule.on_trial_end(tid, TrialState.STOPPED)
    return decisions


class StoppingRuleSuite:
    """Properties every early-stopping rule must have."""

    #: the ``grace`` option passed by :meth:`make` (the suite checks nothing stops before it).
    grace: int = 3
    #: whether the rule is expected to stop some trial of the workload on its own.
    stops_trials: bool = True

    def make(self, mode: Mode, **options: Any) -> StoppingRule:
        """A fresh rule with ``mode`` and ``grace`` (and ``options``, e.g. ``max_t``)."""
        raise NotImplementedError

    def test_only_continue_or_stop(self) -> None:
        decisions = drive(self.make("min"), make_workload(1))
        assert {d for _, _, d in decisions} <= {Decision.CONTINUE, Decision.STOP}
        assert any(d is Decision.STOP for _, _, d in decisions) == self.stops_trials

    def test_min_max_symmetry(self) -> None:
        for seed in (0, 1, 2):
            stream = make_workload(seed)
            assert drive(self.make("min"), stream) == drive(self.make("max"), stream, negate=True)

    def test_never_stops_before_grace(self) -> None:
        for seed in (0, 3):
            for tid, step, decision in drive(self.make("min"), make_workload(seed)):
                assert decision is Decision.CONTINUE or step >= self.grace, (tid, step)

    def test_state_round_trip_gives_same_future(self) -> None:
        stream = make_workload(4)
        half = len(stream) // 2
        original, stopped = self.make("min"), set[int]()
        drive(original, stream[:half], stopped=stopped)
        state = json.loads(json.dumps(original.state_dict(), allow_nan=False))
        restored = self.make("min")
        restored.load_state_dict(state)
        future = drive(original, stream[half:], stopped=set(stopped))
        assert drive(restored, stream[half:], stopped=set(stopped)) == future
        assert json.loads(json.dumps(restored.state_dict(), allow_nan=False)) == \
            json.loads(json.dumps(original.state_dict(), allow_nan=False))

    def test_unknown_trials_are_handled(self) -> None:
        rule = self.make("min")
        rule.on_trial_end(99, TrialState.FAILED)
        assert rule.on_result(7, 1, 0.5) is Decision.CONTINUE
        assert rule.on_result(8, 50, 0.4) in (Decision.CONTINUE, Decision.STOP)
        rule.on_trial_end(7, TrialState.COMPLETED)
        assert rule.on_result(7, 2, 0.5) in (Decision.CONTINUE, Decision.STOP)
        assert rule.on_result(9, 1, math.nan) in (Decision.CONTINUE, Decision.STOP)

    def test_max_t_stops_every_trial_there(self) -> None:
        rule = self.make("min", max_t=10)
        for tid, step, decision in drive(rule, make_workload(5)):
            assert step <= 10, (tid, step)
            if step == 10:
                assert decision is Decision.STOP

    def test_stops_only_at_its_decision_points(self) -> None:
        """The runner makes a trial wait for a verdict only at the rule's decision points, so a
        stop decided anywhere else would land late: every stop must be at one of them."""
        for stream, rule in ((make_workload(6), self.make("min")),
                             (make_workload(7)[::2], self.make("min", max_t=12))):  # skipped steps too
            points, previous = rule.decision_points(), dict[int, int]()
            for tid, step, decision in drive(rule, stream):
                if decision is Decision.STOP:
                    assert points.crossed(previous.get(tid), step), (tid, step)
                previous[tid] = step
