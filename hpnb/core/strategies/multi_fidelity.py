"""The base of the model-based multi-fidelity strategies (``bohb``, ``dehb``): they learn each trial's
results at the rungs of the search's ``asha`` or ``hyperband`` rule (:mod:`.fidelity`) and propose
every new configuration when a slot frees, without waiting for a bracket to end.

The saved state is the seed, the count and whether the model has been announced; a resumed search
relearns the store's trials and their reports (``rebuild``). Each suggestion draws from a generator
seeded by the seed and the trial id, so a search is reproducible for a seed. The first suggestion
made by the model carries an event (``strategy_model``: the trial and the budget, None for final
results without ``max_t``) that the search records.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory
from hpnb.core.strategies.fidelity import END, FidelityRecord, Rungs
from hpnb.core.trial import Suggestion, TrialState


class MultiFidelityStrategy(Strategy):
    """Keeps the configurations and per-budget losses; subclasses implement :meth:`propose`."""

    pairs_with = ("asha", "hyperband")
    rebuilds_from_history = True
    needs_intermediate_values = True

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self.rungs = Rungs()
        self.record = FidelityRecord(self.rungs)
        #: every trial suggested (or adopted, or stored): its configuration.
        self.configs: dict[int, dict[str, Any]] = {}
        self._suggested = 0
        self._announced = False

    def use_stopping_rule(self, rule: StoppingRule) -> None:
        self.rungs = Rungs.of(rule)
        self.record = FidelityRecord(self.rungs, self.record.losses)

    @abstractmethod
    def propose(self, trial_id: int, rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        """The configuration of a new trial and the suggestion's info (``model``: the budget it
        learnt from, when it did)."""

    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        params, info = self.propose(trial_id, np.random.default_rng([self.resolved_seed, int(trial_id)]))
        self._suggested += 1
        self.configs[trial_id] = params
        if "model" in info and not self._announced:
            self._announced = True
            budget = None if info["model"] == END else info["model"]  # None: the end of training
            info["event"] = {"kind": "strategy_model", "strategy": self.name, "trial": trial_id,
                             "budget": budget}
        return Suggestion(params, info=info)

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        suggestion = super().adopt(trial_id, given)
        self._suggested += 1
        self.configs[trial_id] = suggestion.params
        return suggestion

    def unit(self, trial_id: int) -> np.ndarray:
        """A trial's configuration in the unit cube of the free parameters."""
        return self.space.to_unit(self.configs[trial_id])

    # -- results -------------------------------------------------------------------------------
    def report(self, trial_id: int, step: int, value: float) -> None:
        if trial_id in self.configs:
            loss = self.loss(value)
            self.record.report(trial_id, step, np.inf if loss is None else loss)

    def observe(self, trial_id: int, value: Observed, state: TrialState = TrialState.COMPLETED) -> None:
        loss = self.loss(value)
        if trial_id in self.configs and state == TrialState.COMPLETED and loss is not None:
            self.record.complete(trial_id, loss)

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        """Learn the store's trials: their configurations, reports and final values."""
        self._suggested = max(self._suggested, len(history))
        self.configs, self.record = {}, FidelityRecord(self.rungs)
        for trial in history:
            self.configs[trial.trial_id] = dict(trial.params)
            for step in sorted(trial.intermediate):
                self.report(trial.trial_id, step, trial.intermediate[step])
            if trial.state.is_finished:
                self.observe(trial.trial_id, trial.value, trial.state)

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "seed": self.resolved_seed, "suggested": self._suggested,
                "announced": self._announced}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.resolved_seed = int(state.get("seed", self.resolved_seed))
        self._suggested = int(state["suggested"])
        self._announced = bool(state.get("announced", False))
