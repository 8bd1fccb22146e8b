"""CMA-ES: Optuna's ``CmaEsSampler`` behind the Optuna strategy base (see :mod:`.optuna_sampler`).

Optuna keeps the CMA-ES optimizer (pickled) and each trial's generation in the
trials' system attributes. To resume without keeping every trial, the state
holds the attributes of the trials of the current generation: the latest
optimizer and the generation of the trials asked with it. A rebuild
attaches them to the replayed trials, the optimizer to the last completed one
(where Optuna looks for it), so the search carries on from it.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> cma = CMAESStrategy(SearchSpace(tuple(FloatParameter(n, low=-2.0, high=2.0) for n in "xy")),
    ...                     seed=0, popsize=4)
    >>> for i in range(12):
    ...     cma.observe(i, sum(v * v for v in cma.suggest(i).params.values()))
    >>> any(holds_optimizer(attrs) for attrs in cma.state_dict()["attrs"].values())
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hpnb.core.space import SearchSpace
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.optuna_sampler import OptunaStrategy, checked_options

if TYPE_CHECKING:
    import optuna


def is_optimizer_key(key: str) -> bool:
    """Whether a trial attribute is a piece of Optuna's pickled CMA-ES optimizer (``cma:optimizer:0``...)."""
    return ":optimizer:" in key


def holds_optimizer(system_attrs: Mapping[str, Any]) -> bool:
    """Whether Optuna's CMA-ES stored its optimizer in these trial attributes."""
    return any(is_optimizer_key(key) for key in system_attrs)


def generation(system_attrs: Mapping[str, Any]) -> Any:
    """The CMA-ES generation a trial was asked in (``cma:generation``), or None."""
    return next((value for key, value in system_attrs.items() if key.endswith(":generation")), None)


def current_generation(newest_first: Iterable[tuple[int, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The sampler's system attributes of the trials of the current generation: the newest
    trial holding an optimizer, the trials asked after it, and the trials before it asked in
    the same generation (their copies of that generation's optimizer left out).

    ``newest_first`` pairs trial ids with their system attributes, newest trial first;
    Optuna's own ``fixed_params`` (of enqueued trials) are left out.
    """
    kept: dict[str, dict[str, Any]] = {}
    found, holder_generation = False, None
    for trial_id, system_attrs in newest_first:
        attrs = {key: value for key, value in system_attrs.items()
                 if key != "fixed_params" and not (found and is_optimizer_key(key))}
        if found and generation(attrs) != holder_generation:
            break
        if attrs:
            kept[str(trial_id)] = attrs
        if not found and holds_optimizer(attrs):
            found, holder_generation = True, generation(attrs)
    return kept


class CMAESStrategy(OptunaStrategy):
    """Covariance matrix adaptation evolution strategy (``optuna.samplers.CmaEsSampler``).

    Its state also keeps the system attributes Optuna wrote on the trials of the
    optimizer's current generation (:func:`current_generation`), so a resume
    carries on from that optimizer instead of starting over.
    """

    name = "cmaes"
    options = ("popsize", "n_startup_trials", "with_margin", "lr_adapt", "use_separable_cma",
               "consider_pruned_trials")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        super()._set_up(space, budget, options)
        self._saved_attrs: dict[str, dict[str, Any]] = {}

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        flags = ("with_margin", "lr_adapt", "use_separable_cma", "consider_pruned_trials")
        return checked_options(options, ints={"popsize": 2, "n_startup_trials": 0}, flags=flags)

    def _make_sampler(self, seed: int) -> optuna.samplers.BaseSampler:
        from optuna.samplers import CmaEsSampler

        return CmaEsSampler(seed=seed, warn_independent_sampling=False, **self.sampler_kwargs)

    def state_dict(self) -> dict[str, Any]:
        trials = self._study.get_trials(deepcopy=False)
        newest_first = ((self._trial_ids[t.number], t.system_attrs) for t in reversed(trials)
                        if self._trial_ids[t.number] >= 0)  # not the trials of a warm start
        return {**super().state_dict(), "attrs": current_generation(newest_first)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Also the kept attributes; from an older state, those of the latest trials of its list."""
        super().load_state_dict(state)
        if "attrs" in state:
            self._saved_attrs = {str(k): dict(v) for k, v in state["attrs"].items()}
        else:  # an older state: trial ids were handed out in order from 0, as Optuna numbers
            numbered = enumerate(record.get("system_attrs", {}) for record in state.get("trials", []))
            self._saved_attrs = current_generation(reversed(list(numbered)))

    def _replayed_attrs(self, finished: Sequence[TrialHistory]) -> dict[int, dict[str, Any]]:
        """The kept attributes by trial id, the optimizer moved to the last completed trial.

        Optuna restores the optimizer of the last completed trial that holds one; the
        trial that held it may not have completed (or may run again).
        """
        import optuna

        attrs = {int(k): {key: v for key, v in a.items() if not is_optimizer_key(key)}
                 for k, a in self._saved_attrs.items()}
        optimizer = {key: v for a in self._saved_attrs.values() for key, v in a.items()
                     if is_optimizer_key(key)}
        completed = [t.trial_id for t in finished
                     if self._outcome(t.value, t.state)[0] == optuna.trial.TrialState.COMPLETE]
        if optimizer and completed:
            attrs[completed[-1]] = {**attrs.get(completed[-1], {}), **optimizer}
        return attrs
