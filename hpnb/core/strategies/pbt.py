"""Population-based training (Jaderberg et al., 2017): the pure logic, driven by the runner.

Each member of the population is one trial that runs for its whole training
budget; every ``ready`` steps of its own, a member may copy a better member's
checkpoint (exploit) with perturbed hyperparameters (explore). Members are not
synchronised: a ready member is compared with the latest scores of the others,
whatever their step.

What the runner calls, and when:

1. ``suggest(trial_id)`` for new trials: the first ``population`` calls return the
   members' initial configurations (``Suggestion.info["member"]`` is their index),
   later calls return None (``max_trials()`` is the population).
2. For every result of a member, in arrival order:
   ``checkpointed(trial_id, step)`` first when the result carried a checkpoint that
   the runner has stored; then ``report(trial_id, step, value)``; then
   ``decide(trial_id, step)``. ``decide`` returns None (carry on) or an
   :class:`~hpnb.core.strategies.pbt_exploit.Exploit`. On an exploit the runner stops
   the member's running task and starts the same trial id again with
   ``exploit.params``, with ``hpnb.load_checkpoint()`` returning the checkpoint of
   trial ``exploit.donor`` at step ``exploit.donor_step``; the member then reports
   steps after ``donor_step``. The runner keeps that checkpoint until the restart
   has loaded it, stores the new params of the trial and the rows of ``lineage()``.
3. ``observe(trial_id, value, state)`` when a member ends. A failed member is
   never a donor again; finished and stopped members still are.

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

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from hpnb.core.errors import SpecError
from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Mode, Strategy, restore_rng, rng_state
from hpnb.core.strategies.pbt_exploit import EXPLOIT_RULES, EXPLOITS, Exploit, Member
from hpnb.core.strategies.pbt_explore import DEFAULT_FACTORS, EXPLORE_RULES, EXPLORES
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

    Options:
        population: number of members (default: the trial budget, else 8).
        ready: steps of a member between two exploit/explore decisions (default 4).
        max_steps: no decisions at or after this step (default: none).
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
    options = ("population", "ready", "max_steps", "quantile", "exploit", "explore",
               "resample_probability", "perturb_factors", "ttest_level", "ttest_window", "initial")

    def __init__(self, space: SearchSpace, mode: Mode = "min", seed: int | None = None,
                 budget: int | None = None, **options: Any) -> None:
        super().__init__(space, mode, seed, budget, **options)
        if space.dimension == 0:
            raise SpecError("parameters", "population-based training needs a parameter that varies",
                            allowed="a range, a distribution or a list of values")
        default_population = budget if budget else DEFAULT_POPULATION
        self.population = _positive_int("population", options.get("population", default_population), 2)
        self.ready = _positive_int("ready", options.get("ready", 4), 1)
        max_steps = options.get("max_steps")
        self.max_steps = None if max_steps is None else _positive_int("max_steps", max_steps, 1)
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
        if index < len(self.initial):
            params.update(self.initial[index])
        self._members[trial_id] = Member(trial_id, params)
        self._lineage.append({"member": trial_id, "step": 0, "event": "start", "donor": None,
                              "donor_step": None, "params": dict(params)})
        return Suggestion(params, info={"member": index})

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
        member.scores.append(self.score(value) if math.isfinite(value) else math.inf)
        del member.scores[:-self.ttest_window]

    def decide(self, trial_id: int, step: int) -> Exploit | None:
        """After ``report``: None to carry on, or the exploit the runner must carry out."""
        member = self._members.get(trial_id)
        if member is None or member.failed or not member.scores:
            return None
        finished = self.max_steps is not None and step >= self.max_steps
        if finished or step - member.last_decision < self.ready:
            return None
        member.last_decision = step
        donor_id = EXPLOIT_RULES[self.exploit](
            member, list(self._members.values()), self._rng, quantile=self.quantile,
            ttest_level=self.ttest_level, ttest_window=self.ttest_window)
        if donor_id is None:
            return None
        donor = self._members[donor_id]
        assert donor.checkpoint_step is not None
        params = EXPLORE_RULES[self.explore](self.space, donor.params, self._rng,
                                             factors=self.perturb_factors,
                                             probability=self.resample_probability)
        decision = Exploit(trial_id, int(step), donor_id, donor.checkpoint_step, params)
        member.params, member.scores, member.checkpoint_step = params, [], None
        member.last_decision = donor.checkpoint_step
        self._lineage.append({"member": trial_id, "step": int(step), "event": "exploit", "donor": donor_id,
                              "donor_step": donor.checkpoint_step, "params": dict(params)})
        return decision

    def observe(self, trial_id: int, value: float | None,
                state: TrialState = TrialState.COMPLETED) -> None:
        member = self._members.get(trial_id)
        if member is not None and state is TrialState.FAILED:
            member.failed = True

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
                         m.checkpoint_step, m.last_decision, m.failed] for m in self._members.values()],
            "lineage": self.lineage(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        restore_rng(self._rng, dict(state["rng"]))
        self._members = {}
        for tid, params, scores, checkpoint, last, failed in state["members"]:
            self._members[int(tid)] = Member(int(tid), dict(params),
                                             [math.inf if s is None else float(s) for s in scores],
                                             checkpoint, int(last), bool(failed))
        self._lineage = [dict(row) for row in state["lineage"]]

