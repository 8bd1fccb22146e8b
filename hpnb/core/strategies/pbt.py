"""Population-based training (Jaderberg et al., 2017): the pure logic, driven by the runner.

Each member of the population is one trial that runs for its whole training
budget; at every ``ready`` steps of its own (its decision points), a member may
copy a better member's checkpoint (exploit) with perturbed hyperparameters
(explore). The runner makes a member wait for the verdict at those steps only.

When the population is larger than the cluster, members take turns
(:mod:`~hpnb.core.strategies.pbt_schedule`): at a ready step a member that is
ahead of waiting members pauses, freeing its slot, and decides when it resumes.
Asynchronous by default: a member is compared with the scores of the others as
they stood at its step (their latest at or before it), and never copies a donor
more than ``ready`` steps ahead of it. With ``synch: true`` the whole population reaches
each ready step before anyone decides.

What the runner calls, and when:

1. ``suggest(trial_id)`` for new trials: the first ``population`` calls return the
   members' initial configurations (``Suggestion.info["member"]`` is their index),
   later calls return None (``max_trials()`` is the population).
2. For every result of a member, in arrival order:
   ``checkpointed(trial_id, step)`` first when the result carried a checkpoint that
   the runner has stored; then ``report(trial_id, step, value)``; then
   ``decide(trial_id, step)``, which returns None (carry on), ``Decision.PAUSE``,
   ``Decision.STOP`` (the member reached ``max_steps``) or an
   :class:`~hpnb.core.strategies.pbt_exploit.Exploit`. On an exploit the runner ends
   the member's attempt and starts the same trial id again with ``exploit.params``,
   with ``hpnb.load_checkpoint()`` returning the checkpoint of trial
   ``exploit.donor`` at step ``exploit.donor_step``; the member then reports steps
   after ``donor_step``.
3. After a decision, ``settle_paused()`` makes the decisions of paused members
   whose wait is over (trial id -> None or an exploit, which the runner carries out
   at once, while the donors' checkpoints are those of that step); such a member
   ``may_resume`` and the runner resumes it when a slot is free. A runner that must
   resume a member whose wait is not over (nothing else can run) calls
   ``on_resume(trial_id)``, which decides then.
4. ``observe(trial_id, value, state)`` when a member ends. A failed member is
   never a donor again; a finished or stopped member still is for members at or
   past its last checkpoint (copying one ahead would end the copier at once).

A member with no checkpoint is never a donor. After copying, a member has no
checkpoint and no scores of its own until it reports again.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),))
    >>> pbt = PopulationBasedTraining(space, mode="max", seed=0, population=2, ready=2)
    >>> for tid in (0, 1):
    ...     _ = pbt.suggest(tid)
    >>> for step in (1, 2):
    ...     for tid, value in ((0, 0.9), (1, 0.1)):
    ...         pbt.checkpointed(tid, step)
    ...         pbt.report(tid, step, value)
    ...         exploit = pbt.decide(tid, step)
    >>> (exploit.trial_id, exploit.donor, exploit.donor_step)
    (1, 0, 2)
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

import numpy as np

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.early_stopping.base import Decision
from hpnb.core.errors import SpecError
from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Observed, Strategy, restore_rng, rng_state
from hpnb.core.strategies.pbt_exploit import EXPLOIT_RULES, EXPLOITS, Exploit, Member
from hpnb.core.strategies.pbt_explore import DEFAULT_FACTORS, EXPLORE_RULES, EXPLORES
from hpnb.core.strategies.pbt_schedule import must_wait
from hpnb.core.trial import Suggestion, TrialState

DEFAULT_POPULATION = 8


def _path(name: str) -> str:
    return f"strategy.{name}"


def _positive_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(_path(name), f"must be an integer of at least {minimum}", value=value)
    return value


def _fraction(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value <= high:
        raise SpecError(_path(name), f"must be a number in ({low:g}, {high:g}]", value=value)
    return float(value)


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SpecError(_path(name), f"unknown {name} rule", value=value, allowed=allowed)
    return str(value)


class PopulationBasedTraining(Strategy):
    """``strategy: pbt``.

    Configurations given with ``enqueue`` start the first members (they count in the population).

    Options:
        population: number of members (default: the trial budget, else 8).
        ready: steps of a member between two exploit/explore decisions (default 4).
        max_steps: members train this many steps: a member ends there (default: none, members
            end when their own training loop does).
        synch: the whole population reaches each ready step before anyone decides (default false).
        quantile: top/bottom fraction for ``truncation`` (default 0.2).
        exploit: ``truncation`` (default), ``binary_tournament`` or ``ttest``.
        explore: ``perturb`` (default) or ``resample``.
        resample_probability: per-parameter chance to redraw from the prior (default 0.25).
        perturb_factors: factors a real or integer value is multiplied by (default [0.8, 1.2]).
        ttest_level: significance level of ``ttest`` (default 0.05).
        ttest_window: how many recent scores ``ttest`` compares (default 10).
        initial: a list of (partial) configurations for the first members; the rest is drawn.
    """

    name = "pbt"
    enqueued_are_extra = False
    options = ("population", "ready", "max_steps", "synch", "quantile", "exploit", "explore",
               "resample_probability", "perturb_factors", "ttest_level", "ttest_window", "initial")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        if space.dimension == 0:
            raise SpecError("parameters", "population-based training needs a parameter that varies",
                            allowed="a range, a distribution or a list of values")
        default_population = budget if budget else DEFAULT_POPULATION
        self.population = _positive_int("population", options.get("population", default_population), 2)
        self.ready = _positive_int("ready", options.get("ready", 4), 1)
        max_steps = options.get("max_steps")
        self.max_steps = None if max_steps is None else _positive_int("max_steps", max_steps, 1)
        if self.max_steps is not None and self.ready > self.max_steps:
            raise SpecError(_path("ready"), "is more than max_steps: no member would reach a ready step",
                            value=self.ready, allowed=f"an integer from 1 to {self.max_steps}")
        self.synch = options.get("synch", False)
        if not isinstance(self.synch, bool):
            raise SpecError(_path("synch"), "must be true or false", value=self.synch)
        self.points = (DecisionPoints.every_from(self.ready, start=self.ready)
                       | DecisionPoints.at(self.max_steps))
        self.quantile = _fraction("quantile", options.get("quantile", 0.2), 0.0, 0.5)
        self.exploit = _choice("exploit", options.get("exploit", "truncation"), EXPLOITS)
        self.explore = _choice("explore", options.get("explore", "perturb"), EXPLORES)
        self.resample_probability = _fraction(
            "resample_probability", options.get("resample_probability", 0.25), 0.0, 1.0)
        self.ttest_level = _fraction("ttest_level", options.get("ttest_level", 0.05), 0.0, 1.0)
        self.ttest_window = _positive_int("ttest_window", options.get("ttest_window", 10), 2)
        self.perturb_factors = self._factors(options.get("perturb_factors", DEFAULT_FACTORS))
        self.initial = self._initial(options.get("initial", []))
        self._rng = np.random.default_rng(self.resolved_seed)
        self._members: dict[int, Member] = {}
        self._lineage: list[dict[str, Any]] = []

    @staticmethod
    def _factors(factors: Any) -> tuple[float, ...]:
        if (not isinstance(factors, (list, tuple)) or not factors
                or not all(isinstance(f, (int, float)) and f > 0 for f in factors)):
            raise SpecError(_path("perturb_factors"), "must be a list of positive numbers",
                            value=factors)
        return tuple(float(f) for f in factors)

    def _initial(self, initial: Any) -> list[dict[str, Any]]:
        if not isinstance(initial, list) or not all(isinstance(c, Mapping) for c in initial):
            raise SpecError(_path("initial"), "must be a list of configurations", value=initial)
        for i, config in enumerate(initial):
            for name, value in config.items():
                if name not in self.space.names or not self.space[name].contains(value):
                    raise SpecError(_path(f"initial[{i}].{name}"), "is not a value of the space",
                                    value=value, allowed=", ".join(self.space.names))
        return [dict(c) for c in initial]

    # -- the runner's calls ------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        index = len(self._members)
        if index >= self.population:
            return None
        params = self.space.sample(self._rng)
        if index < len(self.initial):  # a conditional space keeps the parameters active in the result
            params = self.space.completed({**params, **self.initial[index]})
        return self._start_member(trial_id, params)

    def _start_member(self, trial_id: int, params: dict[str, Any], **info: Any) -> Suggestion:
        index = len(self._members)
        self._members[trial_id] = Member(trial_id, params)
        self._lineage.append({"member": trial_id, "step": 0, "event": "start", "donor": None,
                              "donor_step": None, "params": dict(params)})
        return Suggestion(params, info={"member": index, **info})

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        """An enqueued configuration starts a member of the population (as ``initial`` ones do)."""
        return self._start_member(trial_id, super().adopt(trial_id, given).params, enqueued=True)

    def max_trials(self) -> int | None:
        return self.population

    def checkpointed(self, trial_id: int, step: int) -> None:
        """The runner has stored a checkpoint of ``trial_id`` at ``step``: it may now be a donor."""
        if trial_id in self._members:
            self._members[trial_id].checkpoint_step = int(step)

    def report(self, trial_id: int, step: int, value: float) -> None:
        member = self._members.get(trial_id)
        if member is None:
            return
        member.step, member.waiting = int(step), False
        member.scores.append(self.score(value) if math.isfinite(value) else math.inf)
        member.score_steps.append(int(step))
        keep = self.ttest_window + self.ready  # a member up to ``ready`` ahead still has a full window
        del member.scores[:-keep], member.score_steps[:-keep]

    def decision_points(self) -> DecisionPoints:
        """Every ``ready`` steps, and ``max_steps``."""
        return self.points

    def decide(self, trial_id: int, step: int) -> Exploit | Decision | None:
        """After ``report``: None to carry on, ``Decision.PAUSE`` or ``Decision.STOP``, or an exploit."""
        member = self._members.get(trial_id)
        if member is None or member.failed:
            return None
        if self.max_steps is not None and step >= self.max_steps:
            return Decision.STOP
        if not member.scores or not self.points.crossed(member.last_decision, step):
            return None
        member.last_decision = step
        if must_wait(member, list(self._members.values()), self._unstarted(), self.synch, self.ready):
            member.paused_at, member.waiting = step, True
            return Decision.PAUSE
        return self._exploit_or_continue(member, step)

    def may_resume(self, trial_id: int) -> bool:
        """Whether a paused member has made the decision it paused before (then it may take a slot)."""
        member = self._members.get(trial_id)
        return member is None or member.paused_at is None

    def settle_paused(self) -> dict[int, Exploit | None]:
        """The decisions of paused members that no longer have to wait, made now."""
        settled: dict[int, Exploit | None] = {}
        for member in list(self._members.values()):
            population, unstarted = list(self._members.values()), self._unstarted()
            waits = must_wait(member, population, unstarted, self.synch, self.ready)
            if member.paused_at is not None and not waits:
                settled[member.trial_id] = self.on_resume(member.trial_id)
        return settled

    def on_resume(self, trial_id: int) -> Exploit | None:
        """The decision a paused member put off, made now (None when it was made already)."""
        member = self._members.get(trial_id)
        if member is None or member.paused_at is None:
            return None
        step, member.paused_at = member.paused_at, None
        return self._exploit_or_continue(member, step) if not member.failed else None

    def _comparable(self, other: Member, step: int) -> bool:
        """Whether ``other`` may be ranked with (and copied by) a member deciding at ``step``: not
        far ahead (it trained on budget the member never had), not ended ahead (copying it would
        end the member at once, untrained)."""
        ahead = other.checkpoint_step is not None and other.checkpoint_step > step
        return not (ahead and (other.done or other.checkpoint_step > step + self.ready))  # type: ignore[operator]

    def _unstarted(self) -> int:
        return self.population - len(self._members)

    def _as_of(self, other: Member, step: int) -> Member:
        """``other`` as it stood at ``step``: ranked by its reports at or before it, so that a member
        that trained further is not judged better for that alone."""
        keep = bisect_right(other.score_steps, step)
        window = slice(max(0, keep - self.ttest_window), keep)
        return dataclasses.replace(other, scores=other.scores[window], score_steps=other.score_steps[window])

    def _exploit_or_continue(self, member: Member, step: int) -> Exploit | None:
        del member.scores[:-self.ttest_window], member.score_steps[:-self.ttest_window]
        comparable = [m if m is member else self._as_of(m, step)
                      for m in self._members.values() if self._comparable(m, step)]
        donor_id = EXPLOIT_RULES[self.exploit](
            member, comparable, self._rng, quantile=self.quantile,
            ttest_level=self.ttest_level, ttest_window=self.ttest_window)
        if donor_id is None:
            return None
        donor = self._members[donor_id]
        assert donor.checkpoint_step is not None
        params = EXPLORE_RULES[self.explore](self.space, donor.params, self._rng,
                                             factors=self.perturb_factors,
                                             probability=self.resample_probability)
        decision = Exploit(member.trial_id, int(step), donor_id, donor.checkpoint_step, params)
        member.params, member.scores, member.score_steps, member.checkpoint_step = params, [], [], None
        member.last_decision = member.step = donor.checkpoint_step
        self._lineage.append({"member": member.trial_id, "step": int(step), "event": "exploit",
                              "donor": donor_id, "donor_step": donor.checkpoint_step, "params": dict(params)})
        return decision

    def observe(self, trial_id: int, value: Observed,
                state: TrialState = TrialState.COMPLETED) -> None:
        member = self._members.get(trial_id)
        if member is not None:
            member.done, member.paused_at, member.waiting = True, None, False
            member.failed = member.failed or state is TrialState.FAILED

    # -- what the runner stores ---------------------------------------------------
    def lineage(self) -> list[dict[str, Any]]:
        """One row per member start and per exploit: member, step, event, donor, donor_step, params."""
        return [dict(row, params=dict(row["params"])) for row in self._lineage]

    def members(self) -> dict[int, dict[str, Any]]:
        """The current hyperparameters of every member."""
        return {tid: dict(m.params) for tid, m in self._members.items()}

    def state_dict(self) -> dict[str, Any]:
        return {
            "rng": rng_state(self._rng),
            "members": [[m.trial_id, m.params, [None if math.isinf(s) else s for s in m.scores],
                         m.checkpoint_step, m.last_decision, m.failed, m.step, m.paused_at, m.done,
                         m.score_steps, m.waiting]
                        for m in self._members.values()],
            "lineage": self.lineage(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        restore_rng(self._rng, dict(state["rng"]))
        self._members = {}
        for tid, params, scores, checkpoint, last, failed, *later in state["members"]:
            # fields saved since time-sharing; a state saved before has none of them
            step, paused_at, done, steps, waiting = (*later, None, False, None, False)[:5] if later else (
                last, None, False, None, False)
            values = [math.inf if s is None else float(s) for s in scores]
            steps = [int(x) for x in steps] if steps else [int(last)] * len(values)
            self._members[int(tid)] = Member(int(tid), dict(params), values, checkpoint, int(last),
                                             bool(failed), int(step), paused_at, bool(done), bool(waiting),
                                             steps)
        self._lineage = [dict(row) for row in state["lineage"]]

