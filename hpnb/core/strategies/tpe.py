"""TPE: Optuna's ``TPESampler`` behind the Optuna strategy base (see :mod:`.optuna_sampler`); with
several objectives, Optuna's multi-objective TPE.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=-2.0, high=2.0),
    ...                      FloatParameter("y", low=-2.0, high=2.0)))
    >>> tpe = TPEStrategy(space, seed=0, n_startup_trials=5)
    >>> for i in range(30):
    ...     p = tpe.suggest(i).params
    ...     tpe.observe(i, p["x"] ** 2 + p["y"] ** 2)
    >>> sorted(tpe.state_dict())
    ['seed', 'strategy', 'suggested']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hpnb.core.strategies.optuna_sampler import OptunaStrategy, checked_options

if TYPE_CHECKING:
    import optuna


class TPEStrategy(OptunaStrategy):
    """Tree-structured Parzen estimator (``optuna.samplers.TPESampler``); with several objectives,
    Optuna's multi-objective TPE."""

    name = "tpe"
    multi_objective = True
    accepts_partial_prior = True
    learns_from_constraints = True
    options = ("n_startup_trials", "multivariate", "group", "constant_liar", "n_ei_candidates")

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        return checked_options(options, ints={"n_startup_trials": 0, "n_ei_candidates": 1},
                               flags=("multivariate", "group", "constant_liar"))

    def _make_sampler(self, seed: int) -> optuna.samplers.BaseSampler:
        from optuna.samplers import TPESampler

        kwargs = dict(self.sampler_kwargs)
        if kwargs.get("group"):
            kwargs["multivariate"] = True  # Optuna requires it for group
        return TPESampler(seed=seed, **kwargs, **self._constraint_options())
