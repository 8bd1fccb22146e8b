"""Parameter importance: how much of the spread of the scores each parameter explains.

The finished trials become an in-memory Optuna study (their parameters in Optuna's
terms, the same mapping TPE and CMA-ES use, see
:mod:`hpnb.core.strategies.optuna_sampler`), and one of Optuna's importance
evaluators ranks the parameters:

- ``fanova`` (the default): a random forest fitted to the scores, its variance split
  per parameter (fANOVA; Hutter et al., 2014). Seeded, so the same trials always give
  the same ranking; trees of :data:`FANOVA_MAX_DEPTH` at most, so that it takes seconds
  for thousands of trials.
- ``ped-anova``: how differently the best trials spread over each parameter than
  all trials (PED-ANOVA; Watanabe et al., 2023); it looks at the best trials, so it
  needs the mode, and no random forest.

Which trials count: COMPLETED ones with a score (the search's target, or another
reported ``metric``); early-stopped trials are left out, their values being of
shorter training (as Optuna leaves out pruned trials). Fixed parameters are not
rated, nor parameters that take one value only. A parameter missing from some
trials (a conditional one, inactive there) is rated with "inactive" as one more
value of its own (as fANOVA's authors treat conditional spaces: inactive values
imputed by a value the parameter cannot take), so its importance includes what
being active or not changes; a parameter present in fewer than
:data:`MIN_TRIALS` trials is not rated. Importances are normalised to sum to 1.

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> from hpnb.core.store import TrialRecord
    >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),
    ...                      FloatParameter("noise", low=0.0, high=1.0)))
    >>> def trial(i):
    ...     x, noise = (i * 0.37) % 1, (i * 0.61) % 1
    ...     score = (x - 0.3) ** 2 + 0.001 * noise
    ...     return TrialRecord(1, i, {"x": x, "noise": noise}, "COMPLETED", 0.0, 1.0, None, None,
    ...                        0, None, None, score, score, {}, None, None)
    >>> list(parameter_importance([trial(i) for i in range(30)], space, "min"))
    ['x', 'noise']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hpnb.core.analysis.analysis_errors import NotEnoughTrials
from hpnb.core.analysis.history import scored_trials
from hpnb.core.errors import HpnbError, quote
from hpnb.core.objectives import Objective
from hpnb.core.space import CategoricalParameter, Parameter, SearchSpace
from hpnb.core.store.records import TrialRecord
from hpnb.core.trial import TrialState

if TYPE_CHECKING:
    import optuna

#: the evaluators :func:`parameter_importance` accepts.
EVALUATORS: tuple[str, ...] = ("fanova", "ped-anova")
#: the fewest completed trials an importance is computed from.
MIN_TRIALS = 4
#: where an inactive value of a conditional parameter sits on its unit axis (its values span [0, 1]).
INACTIVE_ON_UNIT = -0.25
#: fANOVA's trees are at most this deep. Optuna's default (64) grows full trees, whose evaluation
#: grows about with the square of the trials (55 s for 1,000 trials on 2 busy cores); at depth 8 it
#: took 2-8 s for 100 to 5,000 trials with the same ranking, and searches of up to 256 trials
#: get full trees anyway.
FANOVA_MAX_DEPTH = 8
_COMPLETED = frozenset({TrialState.COMPLETED.value})
#: the value of a parameter a trial does not have (inactive under its condition).
INACTIVE = object()


def parameter_importance(trials: Sequence[TrialRecord], space: SearchSpace, mode: str,
                         evaluator: str = "fanova", *, metric: str | None = None,
                         seed: int = 0) -> dict[str, float]:
    """The importance of each rated parameter, most important first (see the module's docstring).

    Args:
        trials: the stored trials of one search.
        space: its search space (``ExperimentSpec.space``).
        mode: "min" or "max" (PED-ANOVA looks at the best trials).
        evaluator: "fanova" or "ped-anova".
        metric: rate the parameters by this reported metric instead of the target
            (one importance per objective).
        seed: the random forest's seed (fANOVA).

    Returns:
        ``{name: importance}``, importances in [0, 1] summing to 1 (all 0 when every
        trial scored the same), ordered from the most important.

    Raises:
        NotEnoughTrials: fewer than :data:`MIN_TRIALS` completed trials with a score.
        HpnbError: an unknown evaluator; no parameter to rate (all fixed).
    """
    if evaluator not in EVALUATORS:
        raise HpnbError(f"importance: evaluator {quote(evaluator)} is not known; "
                        f"allowed: {', '.join(EVALUATORS)}")
    scored = scored_trials(trials, metric, states=_COMPLETED)
    if len(scored) < MIN_TRIALS:
        raise NotEnoughTrials("importance", MIN_TRIALS, len(scored), kind="completed")
    rated = rated_parameters(space, [trial for trial, _ in scored])
    if not rated:
        raise HpnbError("importance: no parameter to rate (every parameter is fixed or takes one value)")
    study = _study(scored, rated, mode)
    if len(study.trials) < MIN_TRIALS:
        raise NotEnoughTrials("importance", MIN_TRIALS, len(study.trials), kind="completed")
    return _evaluate(study, rated, evaluator, seed)


def importance_per_objective(trials: Sequence[TrialRecord], space: SearchSpace,
                             objectives: Sequence[Objective], evaluator: str = "fanova",
                             seed: int = 0) -> dict[str, dict[str, float]]:
    """One importance per objective (by its metric and mode): ``{objective: {parameter: importance}}``
    (one objective: the search's target, as :func:`parameter_importance` rates it).

    Raises:
        NotEnoughTrials, HpnbError: as :func:`parameter_importance`, for any objective.
    """
    several = len(objectives) > 1
    return {o.name: parameter_importance(trials, space, o.mode, evaluator, metric=o.name if several else None,
                                         seed=seed)
            for o in objectives}


def rated_parameters(space: SearchSpace, trials: Sequence[TrialRecord]) -> list[Parameter]:
    """The free parameters of ``space`` with more than one value that at least :data:`MIN_TRIALS`
    of ``trials`` have, in the space's order."""
    return [p for p in space.free
            if p.grid_size() != 1 and sum(p.name in trial.params for trial in trials) >= MIN_TRIALS]


def _encoding(p: Parameter, conditional: bool) -> tuple[Any, Callable[[Any], Any]]:
    """Optuna's distribution of ``p`` and how a stored value (:data:`INACTIVE` when it has none)
    is written in it; a conditional parameter's distribution has room for "inactive"."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution

    from hpnb.core.strategies.optuna_params import encode_value, optuna_distribution

    distribution, on_unit = optuna_distribution(p)
    if not conditional:
        return distribution, lambda value: encode_value(p, value, on_unit)
    if isinstance(p, CategoricalParameter):
        inactive = len(p.choices)
        return (CategoricalDistribution(tuple(range(inactive + 1))),
                lambda value: inactive if value is INACTIVE else p.index(value))
    return (FloatDistribution(INACTIVE_ON_UNIT, 1.0),
            lambda value: INACTIVE_ON_UNIT if value is INACTIVE else p.to_unit(value))


def _study(scored: Sequence[tuple[TrialRecord, float]], rated: Sequence[Parameter],
           mode: str) -> optuna.Study:
    """An in-memory study of the scored trials (those whose values the space cannot take left out)."""
    import optuna

    from hpnb.core.strategies.optuna_params import quiet_optuna

    encoding = {p.name: _encoding(p, any(p.name not in trial.params for trial, _ in scored)) for p in rated}
    distributions = {name: dist for name, (dist, _) in encoding.items()}
    frozen = []
    for trial, score in scored:
        try:
            params = {p.name: encoding[p.name][1](trial.params.get(p.name, INACTIVE)) for p in rated}
            frozen.append(optuna.trial.create_trial(params=params, distributions=distributions, value=score))
        except (KeyError, ValueError, TypeError):
            continue  # a value from an earlier version of the spec
    with quiet_optuna():
        study = optuna.create_study(direction="maximize" if mode == "max" else "minimize")
        study.add_trials(frozen)
    return study


def _evaluate(study: optuna.Study, rated: Sequence[Parameter], evaluator: str,
              seed: int) -> dict[str, float]:
    from optuna.importance import (
        FanovaImportanceEvaluator,
        PedAnovaImportanceEvaluator,
        get_param_importances,
    )

    from hpnb.core.strategies.optuna_params import quiet_optuna

    names = [p.name for p in rated]
    values = {trial.value for trial in study.trials}
    if len(values) == 1:  # nothing to explain (and fANOVA refuses a zero variance)
        return dict.fromkeys(names, 0.0)
    try:
        chosen: Any = (FanovaImportanceEvaluator(max_depth=FANOVA_MAX_DEPTH, seed=seed)
                       if evaluator == "fanova" else PedAnovaImportanceEvaluator())
        with quiet_optuna():
            found = get_param_importances(study, evaluator=chosen, params=names, normalize=True)
    except ImportError as err:  # fANOVA's random forest is scikit-learn's
        raise HpnbError(f"importance: {evaluator} needs a package that is not installed ({err}); "
                        "pip install scikit-learn, or use evaluator='ped-anova'") from err
    importances = {name: _finite(found.get(name, 0.0)) for name in names}
    return dict(sorted(importances.items(), key=lambda item: -item[1]))


def _finite(value: float) -> float:
    number = float(value)
    return number if math.isfinite(number) else 0.0
