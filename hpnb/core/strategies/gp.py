"""Gaussian-process Bayesian optimisation over mixed spaces (numpy and scipy only).

- The first ``n_startup_trials`` suggestions (default 10, at most a quarter of the budget, at
  least 3) are a scrambled Latin hypercube of the space.
- Then each suggestion fits the process of :mod:`.gp_model` (Matern 5/2 on the numeric axes,
  a Hamming kernel on the categorical ones, a fitted noise variance) to the results so far and
  proposes the point of highest log expected improvement (:mod:`.gp_acquisition`) over the
  best posterior mean of a point already run, so one lucky noisy result does not set the bar.
- Failed trials count as the worst result so far (the model learns to avoid them);
  early-stopped ones with their last value.
- Losses that are all positive, the worst 20 times the best or more (a mean squared error, a
  log loss, an error rate with configurations at chance), are modelled by their logarithm
  (:mod:`.gp_scale`), so a few diverged configurations do not flatten the good ones into one
  value; repeats, their noise and the best configuration are still judged on the losses
  themselves.
- A model that has settled on one spot proposes points ever closer to those already run there;
  after :data:`STALLED` proposals in a row within :data:`NEAR` of a point run (per unit axis), the
  next is the best one away from every point run, so a search cannot spend its budget on one
  corner that its model mistakes for the minimum.
- Running trials (``parallel`` > 1) are added with the value the model predicts for them
  (kriging believer), which lowers the improvement expected near them, and no point running or
  already run is proposed again while another is left.
- Noise (``noise: true`` in the spec, or the option ``noise``): the noise variance is fitted with
  a prior that expects it until repeats measure it (pooled over the repeated configurations;
  then it is kept, not fitted, so the model smooths the lucky results). Every
  ``repeat_every``-th suggestion (default 10) after the start-up design runs again the
  configuration ranked best by its estimated mean (:mod:`.gp_repeats`), and so does every
  suggestion of the budget's last ``final_repeats`` (default a tenth): the search ends by
  telling its best few configurations apart. :meth:`best` is the configuration of best
  estimated mean over its runs; ``info["event"]`` records each repeat (the configuration's first
  trial). Without ``noise`` the first :data:`PROBES` repeats due are probes (``"probe": True``):
  once one gives another result the search is noisy; if they all agree it runs nothing twice
  again. Until then the fit expects noise, and the last stretch of a search not known to be
  noisy explores. ``noise: false`` runs nothing twice.
- With constraints (``constraints:``), a process per constraint models each trial's violation
  of it (:mod:`.gp_feasibility`) and the acquisition is log expected improvement plus the log
  probability that every constraint holds; the incumbent is the best posterior mean of a
  feasible trial, and before any trial is feasible the search seeks feasibility alone.
- Hyperparameters are refitted at every suggestion for the first 40 results, then when the
  results have grown by a tenth since the last fit; beyond ``max_points`` results (default
  300) the model keeps the best quarter and the most recent others, so a suggestion stays under
  a second.

The saved state is the seed and the count; a resumed search relearns the store's trials
(``rebuild``). Every suggestion draws from a generator seeded by the seed and the trial id, so
a search is reproducible for a seed. Conditional spaces are modelled with an inactive
parameter as a value of its own; TPE models them better (``auto`` chooses it for them).

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace((FloatParameter("x", low=-2.0, high=2.0),))
    >>> gp = GPStrategy(space, seed=0, budget=20)
    >>> for i in range(20):
    ...     x = gp.suggest(i).params["x"]
    ...     gp.observe(i, (x - 0.5) ** 2)
    >>> abs(gp.best()["x"] - 0.5) < 0.05
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hpnb.core.constraints import MISSING_VIOLATION
from hpnb.core.repeats import Runs, best_runs, config_key, group_runs, is_noisy, noise_variance
from hpnb.core.space import SearchSpace
from hpnb.core.strategies._options import check_bool, check_int, check_number
from hpnb.core.strategies.base import Observed, Strategy, TrialHistory
from hpnb.core.strategies.gp_encoding import Encoding
from hpnb.core.strategies.gp_repeats import DEFAULT_EVERY, DEFAULT_FINAL, repeat_due, to_repeat
from hpnb.core.strategies.gp_scale import on_log_scale, scaled
from hpnb.core.trial import Suggestion, TrialState

if TYPE_CHECKING:  # the model's modules import scipy: only a suggestion from the model loads them,
    # so that checking a spec (the default strategy, auto, builds a gp) stays quick in a cold cell
    from hpnb.core.strategies.gp_model import GaussianProcess, Hyper

DEFAULT_STARTUP, MIN_STARTUP = 10, 3
#: beyond this budget or this many categorical values in all, the process is a poor fit: a warning.
PRACTICAL_TRIALS, PRACTICAL_CHOICES = 1000, 100
#: results up to which the hyperparameters are refitted at every suggestion.
ALWAYS_REFIT = 40
#: the event a repeat of an earlier trial's configuration is recorded as.
REPEAT = "repeat"
#: repeats that must agree before a search whose noise is not known counts as noiseless: one may
#: agree by chance where the noise takes few values (an accuracy on a small validation set).
PROBES = 2
#: a proposal this close to a point already run (per unit numeric axis, same categories) is near it;
#: after STALLED such proposals in a row the next keeps away from every point run (an escape).
NEAR, STALLED = 0.01, 3


def _warn_if_impractical(budget: int | None, choices: int) -> None:
    """Warn, with what to use instead, when the search is beyond what a Gaussian process suits."""
    if budget is not None and budget > PRACTICAL_TRIALS:
        warnings.warn(f"strategy: gp with {budget} trials: each suggestion refits a Gaussian process on up "
                      "to max_points results, slower than TPE and no better so late; use auto (gp, then "
                      "tpe from trial 200) or tpe", UserWarning, stacklevel=3)
    elif choices > PRACTICAL_CHOICES:
        warnings.warn(f"strategy: gp with {choices} categorical values in all: a Hamming kernel learns "
                      "little from so many; use tpe", UserWarning, stacklevel=3)


class GPStrategy(Strategy):
    """Bayesian optimisation with a Gaussian process and log expected improvement."""

    name = "gp"
    rebuilds_from_history = True
    learns_from_constraints = True
    options = ("n_startup_trials", "max_points", "noise", "repeat_every", "final_repeats")

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        default = DEFAULT_STARTUP if budget is None else min(DEFAULT_STARTUP, max(MIN_STARTUP, budget // 4))
        self.n_startup = check_int("n_startup_trials", options.get("n_startup_trials", default), 1)
        self.max_points = check_int("max_points", options.get("max_points", 300), 20)
        noise = options.get("noise")
        #: True: noisy; False: never run a configuration twice; None: its probes find out.
        self.noise: bool | None = None if noise is None else check_bool("noise", noise)
        self.repeat_every = check_int("repeat_every", options.get("repeat_every", DEFAULT_EVERY), 2)
        final = options.get("final_repeats", DEFAULT_FINAL)
        self.final_repeats = check_number("final_repeats", final, 0.0, 0.5)
        self.encoding = Encoding(space)
        _warn_if_impractical(budget, int(self.encoding.sizes.sum()))
        self._design: np.ndarray | None = None  # the start's Latin hypercube, drawn when first needed
        self._suggested = 0
        self._pending: dict[int, dict[str, Any]] = {}
        #: finished trials: configuration and loss (None: failed).
        self._results: dict[int, tuple[dict[str, Any], float | None]] = {}
        self._hyper: Hyper | None = None
        self._fitted_at, self._prior = 0, 0.0
        #: whether the last fit modelled the losses by their logarithm
        self._log = False
        #: model proposals in a row near a point already run
        self._near_streak = 0
        #: constraint violations of ended trials, by trial id (with ``constraints:``)
        self._violations: dict[int, tuple[float, ...]] = {}

    # -- suggestions -------------------------------------------------------------------------
    def suggest(self, trial_id: int) -> Suggestion | None:
        limit = self.max_trials()
        if limit is not None and self._suggested >= limit:
            return None
        if self._suggested < self.n_startup or not self._losses():
            params = self.space.from_unit(self._startup_point(trial_id))
            info: dict[str, Any] = {"gp": "startup"}
        elif (repeat := self._repeat(trial_id)) is not None:
            params, info = repeat
        else:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(1):  # small matrices: threads only contend on a busy machine
                params = self._model_point(np.random.default_rng([self.resolved_seed, int(trial_id)]))
            info = {"gp": "model"}
        self._suggested += 1
        self._pending[trial_id] = params
        return Suggestion(params, info=info)

    def _noisy(self, runs: list[Runs] | None = None) -> bool:
        """Whether the search is noisy: said so, or a configuration gave two different results
        (``runs``: the results grouped, when the caller has them)."""
        return self.noise is True or (self.noise is None and is_noisy(self._runs() if runs is None else runs))

    def _probes(self, runs: list[Runs]) -> int:
        """How many runs, finished or running, repeated a configuration already run."""
        again = sum(one.count - 1 for one in runs)
        done = {config_key(params) for params, _ in self._results.values()}
        return again + sum(config_key(params) in done for params in self._pending.values())

    def _final_stretch(self) -> bool:
        """Whether the next suggestion is among the budget's last ``final_repeats``."""
        budget = self.budget
        return budget is not None and self._suggested >= budget - round(self.final_repeats * budget)

    def _runs(self, feasible: bool = False) -> list[Runs]:
        """The results with a loss (``feasible``: of the feasible trials), grouped by configuration."""
        done = sorted(self._results.items())
        return group_runs((tid, params, loss) for tid, (params, loss) in done if loss is not None
                          and (not feasible or self._feasible(tid)))

    def _feasible(self, trial_id: int) -> bool:
        """Whether a finished trial met every constraint (or reported no violation)."""
        return all(v <= 0 for v in self._violations.get(trial_id, ()))

    def _repeat(self, trial_id: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A new run of the best configuration, when one is due: (params, info). In a noisy search
        every ``repeat_every``-th model suggestion and every one of the budget's last stretch are
        due; while the noise is not known the first :data:`PROBES` periodic ones are probes (the
        last stretch of a search not known to be noisy explores)."""
        if self.noise is False:
            return None
        periodic = repeat_due(self._suggested - self.n_startup, self.repeat_every)
        runs = self._runs()
        probe = not self._noisy(runs)
        if probe and not (periodic and self._probes(runs) < PROBES):
            return None
        if not (probe or periodic or self._final_stretch()):
            return None
        feasible = {tid: result for tid, result in self._results.items() if self._feasible(tid)}
        chosen = to_repeat(feasible, self._pending.values())
        if chosen is None:
            return None
        first, params = chosen
        event = {"kind": REPEAT, "trial": int(trial_id), "of": first, **({"probe": True} if probe else {})}
        return params, {"gp": REPEAT, "repeat_of": first, "event": event}

    def _startup_point(self, trial_id: int) -> np.ndarray:
        if self._suggested < self.n_startup:
            if self._design is None:
                from hpnb.core.strategies.sobol import latin_hypercube

                self._design = latin_hypercube(self.space.dimension, self.n_startup, self.resolved_seed)
            return self._design[self._suggested]
        return np.random.default_rng([self.resolved_seed, int(trial_id)]).random(self.space.dimension)

    def _losses(self) -> list[tuple[int, dict[str, Any], float]]:
        """Every finished trial (id, configuration, loss), a failed one at the worst loss so far."""
        known = [loss for _, loss in self._results.values() if loss is not None]
        if not known:
            return []
        worst = max(known)
        return [(tid, params, worst if loss is None else loss)
                for tid, (params, loss) in self._results.items()]

    def _model_point(self, rng: np.random.Generator) -> dict[str, Any]:
        from hpnb.core.strategies.gp_acquisition import key, log_ei, maximise, near
        from hpnb.core.strategies.gp_feasibility import FeasibilityModel

        ids, configs, losses = self._training_set()
        x, c = self.encoding.encode(configs)
        log = on_log_scale([loss for _, loss in self._results.values() if loss is not None])
        y = scaled(losses, log)
        gp = self._fitted(x, c, y, log)
        violations = self._violation_rows(ids)
        feasible = np.all(violations <= 0.0, axis=1)
        means = gp.predict(x, c)[0]
        incumbent = float(np.min(means[feasible])) if feasible.any() else None
        running = list(self._pending.values())
        if running:
            px, pc = self.encoding.encode(running)
            believed = gp.predict(px, pc)[0]
            gp = gp.condition(np.vstack([x, px]), np.vstack([c, pc]), np.concatenate([y, believed]))
        feasibility = FeasibilityModel.fit(x, c, violations) if violations.shape[1] else None
        order = np.lexsort((y, ~feasible))[:5]  # the best feasible points first
        tx, tc = self.encoding.encode(running + configs)
        excluded = {key(xi, ci) for xi, ci in zip(tx, tc, strict=True)}

        def score(cx: np.ndarray, cc: np.ndarray) -> np.ndarray:
            value = np.zeros(len(cx)) if incumbent is None else log_ei(*gp.predict(cx, cc), best=incumbent)
            return value if feasibility is None else value + feasibility.log_probability(cx, cc)

        away = (tx, tc, NEAR) if self._near_streak >= STALLED else None
        bx, bc = maximise(score, self.encoding, rng, (x[order], c[order]), excluded, away)
        stalled = bool(near(bx[None], bc[None], (tx, tc, NEAR))[0])
        self._near_streak = self._near_streak + 1 if stalled else 0
        return self.encoding.decode(bx, bc)

    def _violation_rows(self, ids: Sequence[int]) -> np.ndarray:
        """(n, constraints): the violations of trials ``ids`` (unknown: as if never reported)."""
        missing = (MISSING_VIOLATION,) * self.constraint_count
        return np.asarray([self._violations.get(tid, missing) for tid in ids],
                          dtype=float).reshape(len(ids), self.constraint_count)

    def _training_set(self) -> tuple[list[int], list[dict[str, Any]], list[float]]:
        """The results the model learns: all of them, or the best quarter and the latest others
        beyond ``max_points``."""
        rows = self._losses()
        if len(rows) > self.max_points:
            ranked = sorted(range(len(rows)), key=lambda i: rows[i][2])
            best = set(ranked[: self.max_points // 4])
            recent = [i for i in reversed(range(len(rows))) if i not in best][: self.max_points - len(best)]
            rows = [rows[i] for i in sorted(best | set(recent))]
        return [tid for tid, _, _ in rows], [p for _, p, _ in rows], [loss for _, _, loss in rows]

    def _fitted(self, x: np.ndarray, c: np.ndarray, y: np.ndarray, log: bool) -> GaussianProcess:
        """The process on ``y`` (the losses on the log scale if ``log``), refitted when due."""
        from hpnb.core.strategies.gp_model import NOISY_PRIOR, PRIOR_NOISE, GaussianProcess, fit

        runs = self._runs()
        noisy = self._noisy(runs)
        # a search whose noise is not known is fitted expecting noise until its probes agree
        expects = noisy or (self.noise is None and self._probes(runs) < PROBES)
        n, prior = len(y), NOISY_PRIOR if expects else PRIOR_NOISE
        same = prior == self._prior and log == self._log
        if self._hyper is None or n <= ALWAYS_REFIT or n >= 1.1 * self._fitted_at or not same:
            # a fit under another noise prior (the noise just found) or on another scale starts
            # afresh, not from the last optimum
            measured = noise_variance(self._runs_scaled(runs, log)) if noisy else None
            gp = fit(x, c, y, start=self._hyper if same else None, noise_prior=prior, noise=measured)
            self._hyper, self._fitted_at, self._prior, self._log = gp.hyper, n, prior, log
            return gp
        return GaussianProcess.conditioned(x, c, y, self._hyper)

    @staticmethod
    def _runs_scaled(runs: list[Runs], log: bool) -> list[Runs]:
        """The runs with their losses on the scale the model learns."""
        return [Runs(one.trial_ids, tuple(scaled(one.losses, log))) for one in runs] if log else runs

    def best(self) -> dict[str, Any] | None:
        """The configuration whose result is the best so far (None before any), of the feasible
        ones with constraints; in a noisy search the one of best estimated mean over its runs."""
        if self._noisy():
            runs = best_runs(self._runs(feasible=True))
            return None if runs is None else dict(self._results[runs.trial_ids[0]][0])
        known = [(loss, tid) for tid, (_, loss) in self._results.items()
                 if loss is not None and self._feasible(tid)]
        return dict(self._results[min(known)[1]][0]) if known else None

    # -- results -------------------------------------------------------------------------------
    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        if self.constraint_count:
            self._violations[trial_id] = tuple(float(v) for v in violations)

    def observe(self, trial_id: int, value: Observed, state: TrialState = TrialState.COMPLETED) -> None:
        params = self._pending.pop(trial_id, None)
        if params is None:
            return
        self._results[trial_id] = (params, None if state == TrialState.FAILED else self.loss(value))

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        suggestion = super().adopt(trial_id, given)
        self._suggested += 1
        self._pending[trial_id] = suggestion.params
        return suggestion

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"strategy": self.name, "seed": self.resolved_seed, "suggested": self._suggested}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if int(state.get("seed", self.resolved_seed)) != self.resolved_seed:
            self.resolved_seed = int(state["seed"])
            self._design = None
        self._suggested = int(state["suggested"])

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        """Learn the store's trials: finished ones as results, the others as running."""
        self._suggested = max(self._suggested, len(history))
        self._pending, self._results, self._violations = {}, {}, {}
        for trial in history:
            params = dict(trial.params)
            if not trial.state.is_finished:
                self._pending[trial.trial_id] = params
            else:
                failed = trial.state == TrialState.FAILED
                self._results[trial.trial_id] = (params, None if failed else self.loss(trial.value))
                if self.constraint_count and trial.violations:
                    self._violations[trial.trial_id] = tuple(trial.violations)
