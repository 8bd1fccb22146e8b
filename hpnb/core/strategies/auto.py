"""``auto``, the default strategy: runs the one :mod:`.auto_choice` picks for the space, the budget
and the objectives, and says which and why.

The choice and its reason are in every suggestion's ``info`` and in the saved state
(``choice``, ``reason``), which ``hpnb show`` and the search's summary print. A long search
that starts with the Gaussian process switches to TPE at trial :data:`~.auto_choice.GP_TRIALS`:
TPE learns every trial so far (the running ones as pending), and the first suggestion after the
switch carries ``info["event"]`` (``strategy_switched``, from, to, the trial), which the runner
records as an event of the search. TPE runs with ``constant_liar`` so parallel trials keep
apart. ``auto`` does not learn another search's trials (``warm_start``): name ``tpe`` for that.
Constraints are passed on to the strategy it runs (gp, tpe and nsga2 learn from them; a grid
that fits the budget runs every configuration anyway). With ``noise`` (``noise: true`` in the
spec) the Gaussian process models the noise and runs the best configurations again; without
``noise`` it finds out by running its best configuration again, twice at most (see :mod:`.gp`).

Example:
    >>> from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
    >>> auto = AutoStrategy(SearchSpace((FloatParameter("lr", low=0.0, high=1.0), IntParameter("n", 1, 9))),
    ...                     seed=0, budget=30)
    >>> auto.choice.reason
    'gp: 30 trials, 1 continuous, 1 integer parameters'
    >>> auto.suggest(0).info["auto"]
    'gp'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from hpnb.core.space import SearchSpace
from hpnb.core.strategies._options import check_bool
from hpnb.core.strategies.auto_choice import Choice, choose
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory
from hpnb.core.trial import Suggestion, TrialState

#: options ``auto`` gives the strategies it runs.
INNER_OPTIONS: dict[str, dict[str, Any]] = {"tpe": {"constant_liar": True}}
SWITCHED = "strategy_switched"


class AutoStrategy(Strategy):
    """Runs the strategy chosen for the search; switches from gp to tpe in long searches."""

    name = "auto"
    multi_objective = True
    rebuilds_from_history = True
    needs_intermediate_values = True
    learns_from_constraints = True
    options = ("noise",)

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        noise = options.get("noise")
        self.noise: bool | None = None if noise is None else check_bool("noise", noise)
        self.choice: Choice = choose(space, budget, len(self.modes))
        if self.noise and self.choice.name == "gp":
            self.choice = replace(self.choice, reason=f"{self.choice.reason}, noisy: repeats the best")
        self.current = self.choice.name
        self.inner = self._make(self.current)
        self.rebuilds_from_history = self.inner.rebuilds_from_history
        self.learns_from_results = self.inner.learns_from_results
        #: what the store holds of this search, for the strategy taking over after a switch.
        self._history: dict[int, TrialHistory] = {}

    def _make(self, name: str) -> Strategy:
        from hpnb.core.strategies import strategy_class

        modes = self.modes if self.is_multi_objective else self.mode
        at = self.choice.switch_at
        budget = self.budget if name != "gp" or at is None or self.budget is None else min(self.budget, at)
        cls = strategy_class(name)
        options = dict(INNER_OPTIONS.get(name, {}))
        if self.noise is not None and "noise" in cls.options:
            options["noise"] = self.noise
        if name == "gp" and budget != self.budget:
            options["final_repeats"] = 0.0  # tpe takes over: the search does not end with the gp
        inner = cls(self.space, modes, seed=self.resolved_seed, budget=budget, **options)
        if self.constraint_count and inner.learns_from_constraints:
            inner.use_constraints(self.constraint_count)
        return inner

    def use_constraints(self, count: int) -> None:
        super().use_constraints(count)
        if self.inner.learns_from_constraints:
            self.inner.use_constraints(count)

    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        known = self._history.get(trial_id)
        if known is not None:
            self._history[trial_id] = replace(known, violations=tuple(violations))
        self.inner.observe_violations(trial_id, violations)

    # -- suggestions -------------------------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        event = self._switch_if_due(trial_id)
        suggestion = self.inner.suggest(trial_id)
        return None if suggestion is None else self._noted(trial_id, suggestion, event)

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        return self._noted(trial_id, self.inner.adopt(trial_id, given), None)

    def _noted(self, trial_id: int, suggestion: Suggestion, event: dict[str, Any] | None) -> Suggestion:
        self._history[trial_id] = TrialHistory(trial_id, dict(suggestion.params), TrialState.RUNNING)
        info = {**suggestion.info, "auto": self.current, "reason": self.choice.reason}
        if event is not None:
            info["event"] = event
        return Suggestion(suggestion.params, suggestion.parent, info)

    def _switch_if_due(self, trial_id: int) -> dict[str, Any] | None:
        at = self.choice.switch_at
        if at is None or self.current != self.choice.name or trial_id < at:
            return None
        previous, self.current = self.current, "tpe"
        self.inner = self._make("tpe")
        self.inner.rebuild([self._history[tid] for tid in sorted(self._history)])
        return {"kind": SWITCHED, "from": previous, "to": self.current, "trial": int(trial_id),
                "reason": f"{previous} ran {at} trials; tpe learns them and goes on"}

    def max_trials(self) -> int | None:
        return self.inner.max_trials()

    # -- results -------------------------------------------------------------------------------
    def observe(self, trial_id: int, value: Observed, state: TrialState = TrialState.COMPLETED) -> None:
        known = self._history.get(trial_id)
        if known is not None:
            self._history[trial_id] = replace(known, state=state, value=value)
        self.inner.observe(trial_id, value, state)

    def report(self, trial_id: int, step: int, value: float) -> None:
        known = self._history.get(trial_id)
        if known is not None:
            self._history[trial_id] = TrialHistory(trial_id, known.params, known.state, known.value,
                                                   {**known.intermediate, int(step): float(value)})
        self.inner.report(trial_id, step, value)

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "choice": self.current, "reason": self.choice.reason,
                "inner": self.inner.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("choice", self.current) != self.current:
            self.current = str(state["choice"])
            self.inner = self._make(self.current)
        self.inner.load_state_dict(state["inner"])

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        self._history = {t.trial_id: t for t in history}
        self.inner.rebuild(history)
