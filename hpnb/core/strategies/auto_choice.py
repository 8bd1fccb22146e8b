"""Which strategy ``auto`` runs, and why, from the space, the budget and the objectives.

- Several objectives: ``tpe`` (Optuna's multi-objective TPE) up to 250 trials, ``nsga2`` beyond,
  where its generations have room to breed (OptunaHub's AutoSampler chooses alike).
- Every parameter has finitely many values and the grid fits in the budget (at most
  :data:`MAX_AUTO_GRID` points): ``grid``.
- A conditional space (``when:``): ``tpe``, which models each parameter on the trials where it
  was active.
- Every free parameter categorical (labels, no numbers in an order): ``tpe``. A Hamming kernel
  tells the Gaussian process only "same value or not", which TPE's per-parameter counts learn as
  well at less cost; an ordered list of numbers is not a category (:mod:`hpnb.core.ordinal_parameter`).
- More than :data:`MAX_GP_DIMENSION` parameters, or more than :data:`MAX_GP_CHOICES` categorical
  values in all: ``tpe``.
- Otherwise ``gp``: best for small budgets; beyond :data:`GP_TRIALS` trials the search switches
  to ``tpe`` (the Gaussian process's cost grows with the trials, TPE's barely).

Example:
    >>> from hpnb.core.space import FloatParameter, SearchSpace
    >>> space = SearchSpace(tuple(FloatParameter(n, low=0.0, high=1.0) for n in "abcdef"))
    >>> choose(space, budget=40, objectives=1)
    Choice(name='gp', reason='gp: 40 trials, 6 continuous parameters', switch_at=None)
"""

from __future__ import annotations

from dataclasses import dataclass

from hpnb.core.errors import SpecError
from hpnb.core.space import (
    DEFAULT_GRID_CAP,
    CategoricalParameter,
    FixedParameter,
    IntParameter,
    OrdinalParameter,
    SearchSpace,
)

#: trials the Gaussian process runs before a longer search switches to TPE.
GP_TRIALS = 200
#: the most free parameters ``auto`` gives the Gaussian process.
MAX_GP_DIMENSION = 20
#: the most categorical values in all ``auto`` gives the Gaussian process.
MAX_GP_CHOICES = 100
#: the largest grid ``auto`` runs whole.
MAX_AUTO_GRID = 100
#: the largest budget with several objectives for which ``auto`` runs TPE rather than NSGA-II.
MULTI_OBJECTIVE_TPE_TRIALS = 250


@dataclass(frozen=True)
class Choice:
    """The strategy chosen, the reason a user reads, and the trial from which TPE takes over."""

    name: str
    reason: str
    switch_at: int | None = None


def describe_space(space: SearchSpace) -> str:
    """The free parameters by kind: ``2 continuous, 1 integer, 4 ordered, 3 categorical parameters``
    (``ordered``: lists of numbers)."""
    kinds = {"continuous": 0, "integer": 0, "ordered": 0, "categorical": 0}
    for p in space.free:
        kind = ("categorical" if isinstance(p, CategoricalParameter)
                else "ordered" if isinstance(p, OrdinalParameter)
                else "integer" if isinstance(p, IntParameter) else "continuous")
        kinds[kind] += 1
    parts = [f"{n} {kind}" for kind, n in kinds.items() if n]
    total = sum(kinds.values())
    text = ", ".join(parts) if parts else "no free"
    return f"{text} parameter{'' if total == 1 else 's'}" + (" (conditional)" if space.is_conditional else "")


def choose(space: SearchSpace, budget: int | None, objectives: int) -> Choice:
    """The strategy for a search of ``budget`` trials (None: not known) over ``space``."""
    trials = f"{budget} trials" if budget is not None else "budget not set"
    what = f"{trials}, {describe_space(space)}"
    if objectives > 1:
        if budget is not None and budget > MULTI_OBJECTIVE_TPE_TRIALS:
            return Choice("nsga2", f"nsga2: {objectives} objectives, {what}")
        return Choice("tpe", f"tpe: {objectives} objectives, {what}")
    if space.dimension == 0 or all(isinstance(p, FixedParameter) for p in space):
        return Choice("random", f"random: {what} (a single configuration)")
    grid = _grid_size(space)
    if grid is not None and grid <= MAX_AUTO_GRID and (budget is None or grid <= budget):
        return Choice("grid", f"grid: {what}, {grid} configurations fit the budget")
    if space.is_conditional:
        return Choice("tpe", f"tpe: {what}")
    if all(isinstance(p, CategoricalParameter) for p in space.free):
        return Choice("tpe", f"tpe: {what}: no order for a Gaussian process to learn")
    if space.dimension > MAX_GP_DIMENSION:
        return Choice("tpe", f"tpe: {what}, more than {MAX_GP_DIMENSION} for a Gaussian process")
    choices = sum(len(p.choices) for p in space.free if isinstance(p, CategoricalParameter))
    if choices > MAX_GP_CHOICES:
        return Choice("tpe", f"tpe: {what}, {choices} categorical values in all")
    if budget is not None and budget > GP_TRIALS:
        return Choice("gp", f"gp: {what}; tpe from trial {GP_TRIALS}", switch_at=GP_TRIALS)
    return Choice("gp", f"gp: {what}")


def _grid_size(space: SearchSpace) -> int | None:
    """The number of grid points when every parameter has finitely many values, else None."""
    try:
        size = space.grid_size()
    except SpecError:
        return None
    return size if size <= DEFAULT_GRID_CAP else None
