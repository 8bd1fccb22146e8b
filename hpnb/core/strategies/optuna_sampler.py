"""TPE and CMA-ES: Optuna's samplers driven in ask-and-tell mode.

Each strategy keeps a private in-memory Optuna study. ``suggest`` asks it for a
trial with fixed distributions, ``observe`` tells the result, ``report``
forwards intermediate values. Optuna's logging and warnings are silenced
while it runs.

How parameters map to Optuna distributions:

==========================================  ================================================
hpnb parameter                              Optuna distribution
==========================================  ================================================
uniform [low, high]                         ``FloatDistribution(low, high)``
uniform with step                           ``FloatDistribution(low, high', step)``, high' the
                                            last grid value
logUniform                                  ``FloatDistribution(low, high, log=True)``
logUniform with step                        the unit axis (below): uniform there is
                                            log-uniform in the value, then quantised
normal, logNormal (bounded or not)          the unit axis: ``FloatDistribution(0, 1)`` over
                                            the parameter's quantile, mapped with
                                            ``Parameter.from_unit``
int (step, or log with step 1)              ``IntDistribution(low, high', step, log)``
int, log with step > 1                      the unit axis (Optuna forbids log with a step)
categorical                                 ``CategoricalDistribution`` over the positions
                                            of the choices (so any YAML value works)
fixed                                       not given to Optuna; added to every config
==========================================  ================================================

On the unit axis Optuna models the value it asked for (the quantile), not the
quantised value the trial ran with; ask-and-tell cannot change a trial's
parameters after asking, and nearby quantiles give the same value anyway.

Results: a completed trial is told COMPLETE with its value; a failed one (value
None, NaN or infinite) FAIL; an early-stopped one PRUNED, after its last value
has been reported as its latest intermediate value (TPE ranks pruned trials by
their last step and value; CMA-ES ignores them unless
``consider_pruned_trials``).

Resuming: :meth:`state_dict` holds every trial of the study (parameters in
Optuna's terms, state, value, intermediate values, system attributes, which
carry the CMA-ES optimizer) in order, the pending trials, and the samplers'
random states. :meth:`load_state_dict` replays them into a fresh study with
``study.add_trial(create_trial(...))`` and restores the random states, so the
next suggestions are the ones the original would have made.

Options passed through (an option not given keeps Optuna's default, so a
search behaves like Optuna's own sampler): ``tpe``: n_startup_trials,
multivariate, group, constant_liar (pending trials count as bad guesses,
which keeps parallel trials apart), n_ei_candidates. ``cmaes``: popsize,
n_startup_trials, with_margin, lr_adapt, use_separable_cma,
consider_pruned_trials. (``sigma0``, ``x0`` and ``restart_strategy`` are
deprecated in Optuna and not offered.) Optuna's CMA-ES needs at least two
continuous dimensions; on a one-dimensional space it samples at random.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=-2.0, high=2.0),
    ...                      FloatParameter("y", low=-2.0, high=2.0)))
    >>> tpe = TPEStrategy(space, seed=0, n_startup_trials=5)
    >>> for i in range(30):
    ...     p = tpe.suggest(i).params
    ...     tpe.observe(i, p["x"] ** 2 + p["y"] ** 2)
    >>> len(tpe.state_dict()["trials"])
    30
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, Parameter, SearchSpace
from hpnb.core.strategies._options import check_bool, check_int
from hpnb.core.strategies.base import Mode, Strategy
from hpnb.core.trial import Suggestion, TrialState

if TYPE_CHECKING:
    import optuna


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Silence Optuna's log messages and warnings for the duration of the block."""
    import optuna

    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        optuna.logging.set_verbosity(verbosity)


def optuna_distribution(p: Parameter) -> tuple[Any, bool]:
    """The Optuna distribution of free parameter ``p``, and whether it is the unit axis."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    unit = FloatDistribution(0.0, 1.0)
    if isinstance(p, CategoricalParameter):
        return CategoricalDistribution(tuple(range(len(p.choices)))), False
    if isinstance(p, IntParameter):
        if p.log and p.step != 1:
            return unit, True
        return IntDistribution(p.low, p.low + (p.count - 1) * p.step, log=p.log, step=p.step), False
    if isinstance(p, FloatParameter) and p.low is not None and p.high is not None:
        if p.distribution == "uniform":
            high = p.high if p.step is None else p.from_unit(1.0)  # the last grid value
            return FloatDistribution(p.low, high, step=p.step), False
        if p.distribution == "logUniform" and p.step is None:
            return FloatDistribution(p.low, p.high, log=True), False
    return unit, True


def _rng_holders(sampler: Any) -> dict[str, Any]:
    """The LazyRandomState objects of ``sampler`` and of the samplers it holds, by attribute path."""
    from optuna.samplers import BaseSampler
    from optuna.samplers._lazy_random_state import LazyRandomState

    found: dict[str, Any] = {}
    for attr, value in sorted(vars(sampler).items()):
        if isinstance(value, LazyRandomState):
            found[attr] = value
        elif isinstance(value, BaseSampler):
            found.update({f"{attr}.{k}": v for k, v in _rng_holders(value).items()})
    return found


def _encode_rng(holder: Any) -> list[Any]:
    name, keys, pos, has_gauss, cached = holder.rng.get_state()
    return [name, [int(k) for k in keys], int(pos), int(has_gauss), float(cached)]


def _decode_rng(holder: Any, state: list[Any]) -> None:
    import numpy as np

    name, keys, pos, has_gauss, cached = state
    holder.rng.set_state((name, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))


def _checked(options: dict[str, Any], ints: dict[str, int], flags: tuple[str, ...]) -> dict[str, Any]:
    """The sampler options the user gave, checked; the others keep Optuna's defaults."""
    kwargs: dict[str, Any] = {}
    for option, minimum in ints.items():
        if options.get(option) is not None:
            kwargs[option] = check_int(option, options[option], minimum)
    for flag in flags:
        if options.get(flag) is not None:
            kwargs[flag] = check_bool(flag, options[flag])
    return kwargs


class OptunaStrategy(Strategy):
    """Base of strategies that wrap an Optuna sampler; subclasses build the sampler."""

    def __init__(self, space: SearchSpace, mode: Mode = "min", seed: int | None = None,
                 budget: int | None = None, **options: Any) -> None:
        super().__init__(space, mode, seed, budget, **options)
        self.sampler_kwargs = self._sampler_kwargs(options)
        self._free = space.free
        self._encoding = {p.name: optuna_distribution(p) for p in self._free}
        self._distributions = {name: dist for name, (dist, _) in self._encoding.items()}
        self._pending: dict[int, optuna.trial.Trial] = {}
        self._suggested = 0
        self._study = self._new_study()

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _make_sampler(self) -> optuna.samplers.BaseSampler:
        raise NotImplementedError

    def _new_study(self) -> optuna.Study:
        import optuna

        with quiet_optuna():
            return optuna.create_study(direction="minimize" if self.mode == "min" else "maximize",
                                       sampler=self._make_sampler())

    def _decode(self, optuna_params: dict[str, Any]) -> dict[str, Any]:
        config = self.space.center()
        for p in self._free:
            value = optuna_params[p.name]
            dist, on_unit = self._encoding[p.name]
            if on_unit:
                config[p.name] = p.from_unit(float(value))
            elif isinstance(p, CategoricalParameter):
                config[p.name] = p.choices[int(value)]
            elif isinstance(p, IntParameter):
                config[p.name] = int(value)
            else:  # a native float: snap away float noise on a step grid
                config[p.name] = p.from_unit(p.to_unit(value)) if dist.step is not None else float(value)
        return config

    # -- the Strategy interface -------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        with quiet_optuna():
            trial = self._study.ask(self._distributions)
        self._pending[trial_id] = trial
        self._suggested += 1
        return Suggestion(self._decode(trial.params), info={"optuna_number": trial.number})

    def report(self, trial_id: int, step: int, value: float) -> None:
        trial = self._pending.get(trial_id)
        if trial is not None and self.is_usable(value):
            with quiet_optuna():
                trial.report(float(value), int(step))

    def observe(self, trial_id: int, value: float | None,
                state: TrialState = TrialState.COMPLETED) -> None:
        import optuna

        trial = self._pending.pop(trial_id, None)
        if trial is None:
            return
        usable = self.is_usable(value)
        with quiet_optuna():
            if state == TrialState.STOPPED:
                if usable:
                    steps = self._study._storage.get_trial(trial._trial_id).intermediate_values
                    trial.report(float(value), max(steps, default=-1) + 1)  # type: ignore[arg-type]
                self._study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            elif usable and state != TrialState.FAILED:
                self._study.tell(trial, float(value))  # type: ignore[arg-type]
            else:
                self._study.tell(trial, state=optuna.trial.TrialState.FAIL)

    # -- resuming ---------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        trials = []
        for t in self._study.get_trials(deepcopy=False):
            trials.append({
                "params": dict(t.params),
                "state": t.state.name,
                "value": t.value,
                "intermediate": [[int(s), float(v)] for s, v in sorted(t.intermediate_values.items())],
                "system_attrs": dict(t.system_attrs),
            })
        return {
            "strategy": self.name,
            "trials": trials,
            "pending": {str(k): trial.number for k, trial in self._pending.items()},
            "suggested": self._suggested,
            "rng": {path: _encode_rng(h) for path, h in _rng_holders(self._study.sampler).items()},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        import optuna

        self._study = self._new_study()
        with quiet_optuna():
            for record in state["trials"]:
                trial_state = optuna.trial.TrialState[record["state"]]
                frozen = optuna.trial.create_trial(
                    state=trial_state,
                    params=record["params"],
                    distributions={name: self._distributions[name] for name in record["params"]},
                    value=record["value"] if trial_state == optuna.trial.TrialState.COMPLETE else None,
                    intermediate_values={int(s): float(v) for s, v in record["intermediate"]},
                    system_attrs=record["system_attrs"],
                )
                self._study.add_trial(frozen)
        frozen_trials = self._study.get_trials(deepcopy=False)
        self._pending = {int(k): optuna.trial.Trial(self._study, frozen_trials[n]._trial_id)
                         for k, n in state["pending"].items()}
        self._suggested = int(state["suggested"])
        holders = _rng_holders(self._study.sampler)
        for path, encoded in state["rng"].items():
            _decode_rng(holders[path], encoded)


class TPEStrategy(OptunaStrategy):
    """Tree-structured Parzen estimator (``optuna.samplers.TPESampler``)."""

    name = "tpe"
    options = ("n_startup_trials", "multivariate", "group", "constant_liar", "n_ei_candidates")

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        return _checked(options, ints={"n_startup_trials": 0, "n_ei_candidates": 1},
                        flags=("multivariate", "group", "constant_liar"))

    def _make_sampler(self) -> optuna.samplers.BaseSampler:
        from optuna.samplers import TPESampler

        kwargs = dict(self.sampler_kwargs)
        if kwargs.get("group"):
            kwargs["multivariate"] = True  # Optuna requires it for group
        return TPESampler(seed=self.resolved_seed, **kwargs)


class CMAESStrategy(OptunaStrategy):
    """Covariance matrix adaptation evolution strategy (``optuna.samplers.CmaEsSampler``)."""

    name = "cmaes"
    options = ("popsize", "n_startup_trials", "with_margin", "lr_adapt", "use_separable_cma",
               "consider_pruned_trials")

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        return _checked(options, ints={"popsize": 2, "n_startup_trials": 0},
                        flags=("with_margin", "lr_adapt", "use_separable_cma", "consider_pruned_trials"))

    def _make_sampler(self) -> optuna.samplers.BaseSampler:
        from optuna.samplers import CmaEsSampler

        return CmaEsSampler(seed=self.resolved_seed, warn_independent_sampling=False, **self.sampler_kwargs)
