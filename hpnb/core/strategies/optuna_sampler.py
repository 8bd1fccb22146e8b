"""The base of TPE and CMA-ES: Optuna's samplers driven in ask-and-tell mode (TPE in :mod:`.tpe`,
CMA-ES in :mod:`.cmaes`).

Each strategy keeps a private in-memory Optuna study. ``suggest`` asks it for a
trial with fixed distributions, ``observe`` tells the result, ``report``
forwards intermediate values. Optuna's logging and warnings are silenced
while it runs.

How parameters map to Optuna distributions: see :mod:`.optuna_params`.

Results: a completed trial is told COMPLETE with its value; a failed one (value
None, NaN or infinite) FAIL; an early-stopped one PRUNED, after its last value
has been reported as its latest intermediate value (TPE ranks pruned trials by
their last step and value; CMA-ES ignores them unless
``consider_pruned_trials``).

Resuming: the store is the history. :meth:`state_dict` is small: the seed, how
many trials were suggested and, for CMA-ES, the system attributes Optuna wrote
on the trials of the current generation (the latest optimizer, pickled by
Optuna, and the generation of each of those trials), a few KB that grow with
the dimension, not with the number of trials. :meth:`rebuild` replays the
store's finished trials into a fresh study with ``study.add_trials(create_trial(...))``
(stored params encoded back into Optuna's terms, intermediate values and, for a
stopped trial, its last value one step after them), attaches the kept attributes
(the optimizer to the last completed trial, so CMA-ES carries on from it), and
asks the unfinished trials again with ``study.enqueue_trial`` so they are pending
as before. Optuna's random state is private, so the rebuilt sampler is seeded
from the seed and the number of trials suggested (:func:`resumed_seed`): a
resumed search continues with valid suggestions learnt from every stored trial,
deterministic for a given store, but not the ones an uninterrupted search would
have made. A trial still running at the resume counts for TPE (pending, or with
its value once it ends) but not as a member of CMA-ES's current generation.
States saved by earlier versions (every trial in the state) still load: their
trial list is ignored, except the CMA-ES attributes of its latest trials, which
are kept as above.

Options passed through (an option not given keeps Optuna's default, so a
search behaves like Optuna's own sampler): ``tpe``: n_startup_trials,
multivariate, group, constant_liar (pending trials count as bad guesses,
which keeps parallel trials apart), n_ei_candidates. ``cmaes``: popsize,
n_startup_trials, with_margin, lr_adapt, use_separable_cma,
consider_pruned_trials. (``sigma0``, ``x0`` and ``restart_strategy`` are
deprecated in Optuna and not offered.) Optuna's CMA-ES needs at least two
continuous dimensions; on a one-dimensional space it samples at random.

Constraints (``constraints:``; tpe and nsga2, whose samplers take Optuna's ``constraints_func``):
each ended trial's violations (one per constraint, at most 0 when satisfied, see
:mod:`hpnb.core.constraints`) are set on its Optuna trial before it is told, and the sampler's
``constraints_func`` reads them back; a rebuilt study gets them with the replayed trials.

Conditional spaces (``when:``) are sampled define-by-run: each trial asks for
its active parameters only, parents first, so TPE models each parameter on the
trials where it was active (per branch). CMA-ES, as in Optuna, models the
parameters every trial has (the unconditional ones) and draws the conditional
ones at random.

Example (CMA-ES, a strategy on this base; TPE's is in :mod:`.tpe`):
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> from hpnb.core.strategies.cmaes import CMAESStrategy
    >>> cma = CMAESStrategy(SearchSpace(tuple(FloatParameter(n, low=-1.0, high=1.0) for n in "ab")), seed=1)
    >>> suggested = cma.suggest(0).params
    >>> cma.observe(0, suggested["a"] ** 2 + suggested["b"] ** 2)
    >>> cma.state_dict()["suggested"]
    1
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from hpnb.core.space import CategoricalParameter, IntParameter, OrdinalParameter, Parameter, SearchSpace
from hpnb.core.strategies._options import check_bool, check_int
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory
from hpnb.core.strategies.optuna_params import encode_value, optuna_distribution, quiet_optuna
from hpnb.core.trial import Suggestion, TrialState

if TYPE_CHECKING:
    import optuna


def resumed_seed(seed: int, suggested: int) -> int:
    """The seed of a sampler rebuilt after ``suggested`` suggestions of a search seeded ``seed``.

    Example:
        >>> resumed_seed(0, 2000) == resumed_seed(0, 2000) != resumed_seed(0, 2001)
        True
    """
    return int(np.random.SeedSequence([seed, suggested]).generate_state(1)[0])


#: the user attribute of an Optuna trial that holds its constraint violations.
VIOLATIONS_ATTR = "hpnb_violations"
#: where Optuna keeps a finished trial's constraint values (``optuna.samplers._base``).
OPTUNA_CONSTRAINTS_KEY = "constraints"


@dataclass
class _Running:
    """A trial asked of the study and not yet told, with its last reported step."""

    trial: optuna.trial.Trial
    last_step: int = -1


def checked_options(options: dict[str, Any], ints: dict[str, int], flags: tuple[str, ...]) -> dict[str, Any]:
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

    rebuilds_from_history = True
    needs_intermediate_values = True
    learns_from_prior = True
    #: a trial of another search that lacks a parameter still teaches it (TPE models each
    #: parameter on the trials that have it; CMA-ES and NSGA-II need every parameter).
    accepts_partial_prior = False

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        self.sampler_kwargs = self._sampler_kwargs(options)
        self._free = space.free
        self._encoding = {p.name: optuna_distribution(p) for p in self._free}
        self._distributions = {name: dist for name, (dist, _) in self._encoding.items()}
        self._pending: dict[int, _Running] = {}
        self._suggested = 0
        #: the hpnb trial id of every Optuna trial, by Optuna trial number (memory only; the
        #: trials learnt from another search, first, have negative ids).
        self._trial_ids: list[int] = []
        #: trials learnt from another search (``warm_start``), told again to every rebuilt study.
        self._prior: list[optuna.trial.FrozenTrial] = []
        #: constraint violations of ended trials not yet told, by trial id
        self._violations: dict[int, tuple[float, ...]] = {}
        self._study = self._new_study(self.resolved_seed % 2**32)  # Optuna's samplers take 32-bit seeds

    def _sampler_kwargs(self, options: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _make_sampler(self, seed: int) -> optuna.samplers.BaseSampler:
        raise NotImplementedError

    def _new_study(self, seed: int) -> optuna.Study:
        import optuna

        directions: list[Literal["minimize", "maximize"]] = [
            "minimize" if mode == "min" else "maximize" for mode in self.modes]
        with quiet_optuna():
            return optuna.create_study(directions=directions, sampler=self._make_sampler(seed))

    def use_constraints(self, count: int) -> None:
        """Build the sampler again with a ``constraints_func`` (before any suggestion)."""
        super().use_constraints(count)
        if self.learns_from_constraints and count:
            self._study = self._new_study(self.resolved_seed % 2**32)

    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        if self.constraint_count:
            self._violations[trial_id] = tuple(float(v) for v in violations)

    def _constraint_options(self) -> dict[str, Any]:
        """The sampler's ``constraints_func`` when the search has constraints."""
        return {"constraints_func": self._told_violations} if self.constraint_count else {}

    def _told_violations(self, trial: optuna.trial.FrozenTrial) -> tuple[float, ...]:
        """Optuna's ``constraints_func``: the violations set on the trial (none known: satisfied)."""
        known = trial.user_attrs.get(VIOLATIONS_ATTR)
        return tuple(known) if known else (0.0,) * self.constraint_count

    def _decode_value(self, p: Parameter, value: Any) -> Any:
        dist, on_unit = self._encoding[p.name]
        if on_unit:
            return p.from_unit(float(value))
        if isinstance(p, CategoricalParameter):
            return p.choices[int(value)]
        if isinstance(p, OrdinalParameter):
            return p.values[int(value)]
        if isinstance(p, IntParameter):
            return int(value)
        # a native float: snap away float noise on a step grid
        return p.from_unit(p.to_unit(value)) if dist.step is not None else float(value)

    def _decode(self, optuna_params: dict[str, Any]) -> dict[str, Any]:
        config = self.space.center(complete=True)
        for p in self._free:
            if p.name in optuna_params or not self.space.is_conditional:
                config[p.name] = self._decode_value(p, optuna_params[p.name])
        return self.space.active(config)

    def _encode(self, config: Mapping[str, Any], partial: bool = False) -> dict[str, Any]:
        """A stored configuration in Optuna's terms (the inverse of :meth:`_decode`); the
        parameters inactive in it (absent) are left out, and with ``partial`` any absent one
        (a KeyError otherwise, on a space without conditions)."""
        return {p.name: encode_value(p, config[p.name], self._encoding[p.name][1]) for p in self._free
                if p.name in config or not (self.space.is_conditional or partial)}

    def _sample_active(self, trial: optuna.trial.Trial) -> None:
        """Define-by-run: ask Optuna for each active parameter, parents first, so that its
        samplers model each parameter on the trials where it was active."""
        chosen: dict[str, Any] = {}
        for p in self.space.evaluation_order:
            condition = self.space.condition(p.name)
            if condition is not None and not condition.holds(chosen):
                continue
            if p.is_fixed:
                chosen[p.name] = p.center()
                continue
            dist = self._distributions[p.name]
            if hasattr(dist, "choices"):
                raw = trial.suggest_categorical(p.name, dist.choices)
            elif isinstance(p, (IntParameter, OrdinalParameter)) and not self._encoding[p.name][1]:
                raw = trial.suggest_int(p.name, dist.low, dist.high, step=dist.step, log=dist.log)
            else:
                raw = trial.suggest_float(p.name, dist.low, dist.high, step=dist.step, log=dist.log)
            chosen[p.name] = self._decode_value(p, raw)

    def _outcome(self, value: Observed,
                 state: TrialState) -> tuple[optuna.trial.TrialState, Any]:
        """How Optuna learns a result: PRUNED (with the last value to report), COMPLETE or FAIL.
        With several objectives: COMPLETE with the list of values, or PRUNED or FAIL without."""
        import optuna

        if self.is_multi_objective:
            return _several_outcome(value, state, self.is_usable)
        usable = self.is_usable(value)
        if state == TrialState.STOPPED:
            return optuna.trial.TrialState.PRUNED, float(value) if usable else None  # type: ignore[arg-type]
        if usable and state != TrialState.FAILED:
            return optuna.trial.TrialState.COMPLETE, float(value)  # type: ignore[arg-type]
        return optuna.trial.TrialState.FAIL, None

    def _ask(self, trial_id: int, fixed: dict[str, Any] | None = None) -> optuna.trial.Trial:
        """A new trial of the study (with ``fixed`` params, enqueued), pending as ``trial_id``."""
        with quiet_optuna():
            if fixed is not None:
                self._study.enqueue_trial(fixed)
            if self.space.is_conditional:
                trial = self._study.ask()
                self._sample_active(trial)
            else:
                trial = self._study.ask(self._distributions)
        self._pending[trial_id] = _Running(trial)
        self._trial_ids.append(trial_id)
        return trial

    # -- the Strategy interface -------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        trial = self._ask(trial_id)
        self._suggested += 1
        return Suggestion(self._decode(trial.params), info={"optuna_number": trial.number})

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        """An enqueued configuration, asked of the study as Optuna's ``enqueue_trial`` does: the
        parameters it leaves out are sampled by the model."""
        trial = self._ask(trial_id, self._encode(given, partial=True))
        self._suggested += 1
        return Suggestion(self._decode(trial.params), info={"optuna_number": trial.number, "enqueued": True})

    def report(self, trial_id: int, step: int, value: float) -> None:
        running = self._pending.get(trial_id)
        # Optuna keeps no intermediate values for several objectives
        if running is not None and self.is_usable(value) and not self.is_multi_objective:
            with quiet_optuna():
                running.trial.report(float(value), int(step))
            running.last_step = max(running.last_step, int(step))

    def observe(self, trial_id: int, value: Observed,
                state: TrialState = TrialState.COMPLETED) -> None:
        import optuna

        running = self._pending.pop(trial_id, None)
        violations = self._violations.pop(trial_id, None)
        if running is None:
            return
        outcome, final = self._outcome(value, state)
        with quiet_optuna():
            if violations is not None:
                running.trial.set_user_attr(VIOLATIONS_ATTR, list(violations))
            if outcome == optuna.trial.TrialState.PRUNED and final is not None:
                running.trial.report(final, running.last_step + 1)
            told = final if outcome == optuna.trial.TrialState.COMPLETE else None
            self._study.tell(running.trial, told, state=outcome)

    # -- resuming ---------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "seed": self.resolved_seed, "suggested": self._suggested}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore the seed and count; the trial list of an older state is ignored (see :meth:`rebuild`)."""
        self.resolved_seed = int(state.get("seed", self.resolved_seed))
        self._suggested = int(state["suggested"])

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        """Replay the store's trials into a fresh study: finished ones told, unfinished ones pending.

        Example:
            >>> from hpnb.core.space import FloatParameter, SearchSpace
            >>> from hpnb.core.strategies.tpe import TPEStrategy
            >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
            >>> tpe = TPEStrategy(space, seed=0)
            >>> tpe.rebuild([TrialHistory(0, {"x": 0.5}, TrialState.COMPLETED, 0.25),
            ...              TrialHistory(1, {"x": 0.1}, TrialState.RUNNING)])
            >>> tpe.state_dict()["suggested"], 0.0 <= tpe.suggest(2).params["x"] <= 1.0
            (2, True)
        """
        if not history and not self._suggested:
            return  # a fresh search: keep the sampler seeded as Optuna's own would be
        self._suggested = max(self._suggested, len(history))
        self._study = self._new_study(resumed_seed(self.resolved_seed, self._suggested))
        self._pending, self._trial_ids = {}, []
        self._tell_prior()
        finished = [t for t in history if t.state.is_finished]
        attrs = self._replayed_attrs(finished)
        frozen = {t.trial_id: self._frozen(t, attrs.get(t.trial_id, {})) for t in finished}
        replayed = [(tid, f) for tid, f in frozen.items() if f is not None]
        with quiet_optuna():
            self._study.add_trials([f for _, f in replayed])
        self._trial_ids += [tid for tid, _ in replayed]
        for trial in history:
            if not trial.state.is_finished:
                self._resume_pending(trial)

    def learn_prior(self, trials: Sequence[TrialHistory]) -> int:
        """Learn completed trials of another search (``warm_start``) before suggesting; they are
        told again to every rebuilt study. Returns how many could be learnt: a trial lacking a
        parameter active in it counts only for strategies that model each parameter on its own."""
        usable = [t for t in trials if self.accepts_partial_prior or self._complete(t.params)]
        attrs = self._prior_attrs()
        self._prior = [f for f in (self._frozen(t, attrs, partial=True) for t in usable) if f is not None]
        self._tell_prior()
        return len(self._prior)

    def _complete(self, params: Mapping[str, Any]) -> bool:
        active = self.space.completed(params)
        return all(name in params for name in active if not self.space[name].is_fixed)

    def _tell_prior(self) -> None:
        if self._prior:
            with quiet_optuna():
                self._study.add_trials(self._prior)
            self._trial_ids = [-1 - i for i in range(len(self._prior))] + self._trial_ids

    def _prior_attrs(self) -> dict[str, Any]:
        """System attributes of the trials learnt from another search (none here)."""
        return {}

    def _replayed_attrs(self, finished: Sequence[TrialHistory]) -> dict[int, dict[str, Any]]:
        """System attributes to attach to replayed trials, by trial id (none: TPE keeps no state there)."""
        return {}

    def _frozen(self, trial: TrialHistory, system_attrs: dict[str, Any],
                partial: bool = False) -> optuna.trial.FrozenTrial | None:
        """``trial`` as a finished Optuna trial; None when its params are not in the space any more
        (with ``partial``, when it has none of them)."""
        import optuna

        outcome, final = self._outcome(trial.value, trial.state)
        steps = {int(s): float(v) for s, v in sorted(trial.intermediate.items()) if self.is_usable(v)}
        if self.is_multi_objective:
            steps = {}  # Optuna keeps no intermediate values for several objectives
        elif outcome == optuna.trial.TrialState.PRUNED:
            if final is not None:
                steps[max(steps, default=-1) + 1] = final
            final = steps[max(steps)] if steps else None  # what Optuna's tell records for a pruned trial
        try:
            params = self._encode(trial.params, partial)
            if partial and not params:
                return None
            told = {"values": final} if self.is_multi_objective else {"value": final}
            attrs = {**system_attrs, **self._replayed_violations(trial, outcome)}
            return optuna.trial.create_trial(
                state=outcome, params=params, distributions={n: self._distributions[n] for n in params},
                intermediate_values=steps, system_attrs=attrs, **told)
        except (KeyError, ValueError, TypeError):
            return None

    def _replayed_violations(self, trial: TrialHistory, outcome: optuna.trial.TrialState) -> dict[str, Any]:
        """A replayed trial's constraint values, where Optuna's tell would have put them."""
        import optuna

        finished = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
        if not self.constraint_count or outcome not in finished:
            return {}
        known = tuple(trial.violations) or (0.0,) * self.constraint_count
        return {OPTUNA_CONSTRAINTS_KEY: known}

    def _resume_pending(self, trial: TrialHistory) -> None:
        """Ask an unfinished trial again with its stored params and put back its reports."""
        try:
            fixed = self._encode(trial.params)
        except (KeyError, ValueError, TypeError):
            return
        self._ask(trial.trial_id, fixed)
        for step, value in sorted(trial.intermediate.items()):
            self.report(trial.trial_id, step, value)


def _several_outcome(value: Any, state: TrialState,
                     usable: Callable[[Any], bool]) -> tuple[optuna.trial.TrialState, list[float] | None]:
    """The outcome of a trial of a search with several objectives (``value``: their tuple)."""
    import optuna

    if state == TrialState.STOPPED:
        return optuna.trial.TrialState.PRUNED, None
    if state != TrialState.FAILED and isinstance(value, tuple) and value and all(map(usable, value)):
        return optuna.trial.TrialState.COMPLETE, [float(v) for v in value]
    return optuna.trial.TrialState.FAIL, None
