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
On a space of lists the Gaussian process is hedged (``choice.hedge``): once :data:`HEDGE_FROM`
trials have finished, every third turn of its model goes to TPE, which learns every trial as the
process does (the suggestion's ``info["hedge"]`` is ``"tpe"``); start-up points and repeats stay
the process's, and a TPE proposal of a configuration already run gives the turn back to it.

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

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from hpnb.core.repeats import config_key
from hpnb.core.space import SearchSpace
from hpnb.core.strategies._options import check_bool
from hpnb.core.strategies.auto_choice import Choice, choose
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory
from hpnb.core.trial import Suggestion, TrialState

#: options ``auto`` gives the strategies it runs.
INNER_OPTIONS: dict[str, dict[str, Any]] = {"tpe": {"constant_liar": True}}
SWITCHED = "strategy_switched"
#: finished trials before TPE makes a hedged turn (its own start-up: Optuna's default).
HEDGE_FROM = 10


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
        #: TPE beside the Gaussian process, learning every trial, on a space of lists.
        self.hedge: Strategy | None = self._make("tpe") if self.choice.hedge else None
        self._model_turns = 0
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

    def _learners(self) -> list[Strategy]:
        """The strategies that learn every trial: the one running, and its hedge."""
        return [self.inner] if self.hedge is None else [self.inner, self.hedge]

    def use_constraints(self, count: int) -> None:
        super().use_constraints(count)
        for learner in self._learners():
            if learner.learns_from_constraints:
                learner.use_constraints(count)

    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        known = self._history.get(trial_id)
        if known is not None:
            self._history[trial_id] = replace(known, violations=tuple(violations))
        for learner in self._learners():
            learner.observe_violations(trial_id, violations)

    # -- suggestions -------------------------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        event = self._switch_if_due(trial_id)
        if self._hedge_turn():
            assert self.hedge is not None
            hedged = self.hedge.suggest(trial_id)
            if hedged is not None and config_key(hedged.params) not in self._known_configurations():
                adopted = self.inner.adopt(trial_id, hedged.params)
                return self._noted(trial_id, Suggestion(adopted.params, info={"hedge": "tpe"}), event)
            if hedged is not None:  # a configuration already run: the process's turn after all
                self.hedge.observe(trial_id, None, TrialState.FAILED)
        suggestion = self.inner.suggest(trial_id)
        if suggestion is not None and self.hedge is not None:
            self.hedge.adopt(trial_id, suggestion.params)
        return None if suggestion is None else self._noted(trial_id, suggestion, event)

    def _hedge_turn(self) -> bool:
        """Whether TPE makes this suggestion: every ``choice.hedge``-th turn of the process's model,
        once TPE has :data:`HEDGE_FROM` finished trials to learn from."""
        next_from_model = getattr(self.inner, "next_from_model", None)
        if self.hedge is None or next_from_model is None or not next_from_model():
            return False
        finished = sum(t.state.is_finished for t in self._history.values())
        if finished < HEDGE_FROM:
            return False
        self._model_turns += 1
        return self._model_turns % int(self.choice.hedge or 1) == 0

    def _known_configurations(self) -> set[Hashable]:
        """The configurations of every trial so far (repeats are the process's to choose)."""
        return {config_key(t.params) for t in self._history.values()}

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        suggestion = self.inner.adopt(trial_id, given)
        if self.hedge is not None:
            self.hedge.adopt(trial_id, suggestion.params)
        return self._noted(trial_id, suggestion, None)

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
        self.inner, self.hedge = self._make("tpe"), None
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
        for learner in self._learners():
            learner.observe(trial_id, value, state)

    def report(self, trial_id: int, step: int, value: float) -> None:
        known = self._history.get(trial_id)
        if known is not None:
            self._history[trial_id] = TrialHistory(trial_id, known.params, known.state, known.value,
                                                   {**known.intermediate, int(step): float(value)})
        for learner in self._learners():
            learner.report(trial_id, step, value)

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        state: dict[str, Any] = {"strategy": self.name, "choice": self.current, "reason": self.choice.reason,
                                 "inner": self.inner.state_dict()}
        if self.hedge is not None:
            state.update(hedge=self.hedge.state_dict(), model_turns=self._model_turns)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("choice", self.current) != self.current:
            self.current = str(state["choice"])
            self.inner, self.hedge = self._make(self.current), None
        self.inner.load_state_dict(state["inner"])
        if self.hedge is not None and "hedge" in state:
            self.hedge.load_state_dict(state["hedge"])
            self._model_turns = int(state.get("model_turns", 0))

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        self._history = {t.trial_id: t for t in history}
        for learner in self._learners():
            learner.rebuild(history)
