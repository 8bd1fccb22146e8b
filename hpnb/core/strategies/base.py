"""The interface every search strategy implements.

A strategy proposes configurations and learns from results. It is
asynchronous: ``suggest`` may be called while earlier trials still run, and
``observe`` may be called for trials in any order. It never runs anything
itself; the runner asks, runs, and tells.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.errors import SpecError, closest
from hpnb.core.objectives import Objective
from hpnb.core.space import SearchSpace
from hpnb.core.trial import Suggestion, TrialState

if TYPE_CHECKING:
    from hpnb.core.early_stopping.base import Decision, StoppingRule
    from hpnb.core.strategies.pbt_exploit import Exploit

Mode = Literal["min", "max"]
#: the mode of the one objective, or one mode per objective of a search with several.
Modes = Mode | tuple[Mode, ...]
#: what a strategy learns of an ended trial: its value, or with several objectives their tuple.
Observed = float | tuple[float, ...] | None


@dataclass(frozen=True)
class TrialHistory:
    """One stored trial, as a strategy learns it again when a search resumes.

    Attributes:
        trial_id: the trial's id.
        params: the configuration it ran with (the store's, which is authoritative).
        state: where it is; an unfinished trial (PENDING, RUNNING) will run again.
        value: its final value; None when it failed or has none yet. With several
            objectives: the tuple of their values, None unless it has all of them.
        intermediate: step -> reported value of the target metric, filled only for
            strategies whose ``needs_intermediate_values`` is true.
        violations: one number per constraint of the search (at most 0: satisfied; see
            :mod:`hpnb.core.constraints`), filled only for strategies that learn from constraints.

    Example:
        >>> TrialHistory(3, {"x": 0.5}, TrialState.STOPPED, 0.25, {0: 0.5, 1: 0.25}).state.is_finished
        True
    """

    trial_id: int
    params: Mapping[str, Any]
    state: TrialState
    value: Observed = None
    intermediate: Mapping[int, float] = field(default_factory=dict)
    violations: tuple[float, ...] = ()


class Strategy(ABC):
    """Base class of search strategies.

    Args:
        space: the search space.
        mode: whether a lower (``min``) or higher (``max``) value is better; with several
            objectives, a tuple of one mode per objective (see ``multi_objective``).
        seed: makes the sequence of suggestions reproducible.
        budget: the number of trials the search may run, when known.
        **options: strategy-specific options from ``strategy: {name: ..., ...}``.

    Subclasses keep every piece of state they need to continue in
    :meth:`state_dict`, which must be JSON-serialisable.
    """

    name: str = ""
    #: whether results change later suggestions; when they do not, the runner may
    #: queue the next trials on the cluster before slots free up.
    learns_from_results: bool = True
    #: option names the strategy accepts (checked by the spec parser).
    options: tuple[str, ...] = ()
    #: :meth:`rebuild` learns every stored trial itself, so a resume does not replay
    #: ``suggest``/``observe`` for the trials stored after the saved state (see :func:`catch_up`).
    rebuilds_from_history: bool = False
    #: :meth:`rebuild` needs each trial's intermediate values (a resume reads them in one query).
    needs_intermediate_values: bool = False
    #: it can run a search with several objectives: ``observe`` then gets a tuple of values
    #: (strategies that do not learn from results can; of the others, those that model all
    #: the objectives at once).
    multi_objective: bool = False
    #: :meth:`learn_prior` learns another search's trials (``warm_start``).
    learns_from_prior: bool = False
    #: configurations the search was given to run first (``enqueue``) come on top of the ones
    #: it proposes (false for population-based training: they are members of the population).
    enqueued_are_extra: bool = True
    #: the early-stopping rules whose rungs it models (multi-fidelity strategies: ``bohb``, ``dehb``);
    #: a spec without early stopping gets the first, any other rule is refused.
    pairs_with: tuple[str, ...] = ()
    #: it learns from the search's constraints (:meth:`use_constraints`, :meth:`observe_violations`);
    #: the others ignore them and only the ranking of trials applies them.
    learns_from_constraints: bool = False

    def __init__(self, space: SearchSpace, mode: Modes = "min", seed: int | None = None,
                 budget: int | None = None, **options: Any) -> None:
        modes: tuple[Any, ...] = (mode,) if isinstance(mode, str) else tuple(mode)
        for one in modes or ("",):
            if one not in ("min", "max"):
                raise SpecError("mode", "unknown mode", value=one, allowed=("min", "max"))
        if len(modes) > 1 and not self.multi_objective:
            raise _single_objective_only(self.name, len(modes))
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise SpecError(f"strategy.{unknown[0]}", f"is not an option of the {self.name} strategy",
                            allowed=", ".join(self.options) or "no options",
                            suggestion=closest(unknown[0], self.options))
        self.space = space
        #: one mode per objective; ``mode`` is the first one's.
        self.modes: tuple[Mode, ...] = modes
        self.mode: Mode = modes[0]
        #: the direction of the first objective, which :meth:`score` follows.
        self.objective = Objective("value", modes[0])
        self.seed = seed
        self.budget = budget
        #: how many constraints the strategy learns (:meth:`use_constraints`; 0: none).
        self.constraint_count = 0
        #: the seed actually used: ``seed``, or fresh entropy recorded so a resumed run continues.
        self.resolved_seed: int = (int(seed) if seed is not None
                                   else int(np.random.default_rng().integers(2**32)))
        self._set_up(space, budget, options)

    def _set_up(self, space: SearchSpace, budget: int | None, options: dict[str, Any]) -> None:
        """Set up what the strategy holds of its own, from its ``options`` (checked against
        :attr:`options` already); called once, at the end of the constructor."""

    @abstractmethod
    def suggest(self, trial_id: int) -> Suggestion | None:
        """The configuration of trial ``trial_id``, or None when the space is exhausted."""

    def adopt(self, trial_id: int, given: Mapping[str, Any]) -> Suggestion:
        """Trial ``trial_id`` runs a configuration the search was given (``enqueue``): ``given``
        completed with the parameters it leaves out, then learnt like a suggestion of its own.

        This one draws the missing parameters at random (seeded by the seed and the trial id)
        and leaves the strategy's own sequence as it was: strategies that do not learn from
        results ignore the trial. Model-based strategies override it.
        """
        rng = np.random.default_rng([self.resolved_seed, int(trial_id)])
        drawn = {p.name: p.sample(rng) for p in self.space}  # every parameter, active or not
        return Suggestion(self.space.active({**drawn, **given}), info={"enqueued": True})

    @property
    def is_multi_objective(self) -> bool:
        return len(self.modes) > 1

    def observe(self, trial_id: int, value: Observed,
                state: TrialState = TrialState.COMPLETED) -> None:
        """Learn the final ``value`` of trial ``trial_id`` (None when it failed).

        Stopped trials (early stopping) are observed with their last reported value.
        With several objectives, ``value`` is the tuple of their values (None unless the
        trial has every one). Strategies whose next suggestions do not depend on results
        ignore it.
        """
        return None

    def use_constraints(self, count: int) -> None:
        """The search has ``count`` constraints: called once, before the first suggestion, on a
        strategy that learns from them. Each ended trial's violations then come through
        :meth:`observe_violations` before :meth:`observe`, and resumed trials carry theirs."""
        self.constraint_count = int(count)

    def observe_violations(self, trial_id: int, violations: Sequence[float]) -> None:
        """One number per constraint for trial ``trial_id`` (at most 0: satisfied; large when the
        trial never reported the metric). Strategies that ignore constraints ignore it."""
        return None

    def learn_prior(self, trials: Sequence[TrialHistory]) -> int:
        """Learn the completed ``trials`` of another search before suggesting (``warm_start``);
        returns how many it learnt. Only strategies with ``learns_from_prior`` do (none here)."""
        return 0

    def use_stopping_rule(self, rule: StoppingRule) -> None:
        """The search's early-stopping rule, given before the first suggestion; multi-fidelity
        strategies read its rungs and brackets (the others ignore it)."""
        return None

    def report(self, trial_id: int, step: int, value: float) -> None:
        """An intermediate value; most strategies ignore it."""
        return None

    def checkpointed(self, trial_id: int, step: int) -> None:
        """The runner stored a checkpoint of ``trial_id`` at ``step`` (population-based training)."""

    def decide(self, trial_id: int, step: int) -> Exploit | Decision | None:
        """After :meth:`report`: None to carry on (most strategies), an exploit for the runner to carry
        out, ``Decision.PAUSE`` or ``Decision.STOP`` (population-based training)."""
        return None

    def decision_points(self) -> DecisionPoints:
        """The steps at which :meth:`decide` can answer something else than None (none here)."""
        return DecisionPoints()

    def may_resume(self, trial_id: int) -> bool:
        """Whether a trial this strategy paused may take a free slot now."""
        return True

    def settle_paused(self) -> dict[int, Exploit | None]:
        """Decisions of paused trials whose wait is over, made now: trial id -> None or an exploit."""
        return {}

    def on_resume(self, trial_id: int) -> Exploit | None:
        """The runner resumes a trial the strategy paused: an exploit to restart it with, or None."""
        return None

    def max_trials(self) -> int | None:
        """How many trials this strategy can propose at most (None: unbounded).

        A space whose parameters are all fixed has a single configuration, so
        sampling strategies propose it once.
        """
        return 1 if self.space.dimension == 0 else None

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue the same sequence, JSON-serialisable."""

    @abstractmethod
    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""

    def rebuild(self, history: Sequence[TrialHistory]) -> None:
        """Learn again from the store's trials when a search resumes (after :meth:`load_state_dict`).

        ``history`` holds every stored trial, by trial id. The default does nothing: it
        suits strategies whose small :meth:`state_dict` holds all they learned. A strategy
        that overrides it and sets ``rebuilds_from_history`` treats every trial of
        ``history`` as suggested, the finished ones as observed and the unfinished ones
        as pending (the runner runs them again and observes them later).
        """
        return None

    # helpers shared by implementations ------------------------------------------------
    def score(self, value: float) -> float:
        """``value`` turned into a quantity to minimise (mode-independent)."""
        return self.objective.loss(value)

    @staticmethod
    def is_usable(value: Any) -> bool:
        """Whether ``value`` is a result to learn from (not a failure, not NaN or infinite)."""
        if value is None or isinstance(value, bool):
            return False
        try:
            return math.isfinite(float(value))
        except (TypeError, ValueError):
            return False

    def loss(self, value: Any) -> float | None:
        """The value to minimise for a result, or None when the trial failed or is unusable."""
        return self.score(float(value)) if self.is_usable(value) else None


def _single_objective_only(name: str, count: int) -> SpecError:
    from hpnb.core.named_classes import multi_objective_strategies

    return SpecError("strategy", f"the {name} strategy learns from one objective, and the search has "
                     f"{count} (metrics:)", value=name,
                     allowed=", ".join(multi_objective_strategies()) + " (nsga2 and tpe learn from all "
                     "the objectives; the others do not learn from results)")


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """The JSON-serialisable state of a numpy Generator."""
    return dict(rng.bit_generator.state)


def restore_rng(rng: np.random.Generator, state: dict[str, Any]) -> None:
    """Put a numpy Generator back into a state :func:`rng_state` returned."""
    rng.bit_generator.state = state


def catch_up(strategy: Strategy, history: Sequence[TrialHistory], last_suggested: int,
             pending: Collection[int] = (), enqueued: Sequence[Mapping[str, Any]] = ()) -> None:
    """Bring ``strategy``, restored from a saved state, up to the store's ``history``.

    The state was saved when trial ``last_suggested`` was the last suggested and the
    trials in ``pending`` were not yet observed. After :meth:`Strategy.rebuild`, a
    strategy that does not rebuild from history has ``suggest`` (``adopt`` for the first
    trials, which ran the ``enqueued`` configurations) replayed for every later trial (to
    advance its sequence; the stored params stay authoritative) and ``observe`` for the
    finished trials it has not seen.

    Example:
        >>> from hpnb.core.space import FloatParameter, SearchSpace
        >>> from hpnb.core.strategies.random import RandomStrategy
        >>> space = SearchSpace((FloatParameter("x", low=0.0, high=1.0),))
        >>> first = RandomStrategy(space, seed=0)
        >>> saved = first.state_dict()
        >>> made = [first.suggest(i).params for i in range(2)]
        >>> resumed = RandomStrategy(space, seed=0)
        >>> resumed.load_state_dict(saved)
        >>> catch_up(resumed, [TrialHistory(i, p, TrialState.COMPLETED, p["x"]) for i, p in enumerate(made)],
        ...          last_suggested=-1)
        >>> resumed.suggest(2) == first.suggest(2)
        True
    """
    strategy.rebuild(history)
    if strategy.rebuilds_from_history:
        return
    for trial in history:
        if trial.trial_id > last_suggested:
            if trial.trial_id < len(enqueued):  # the first trials run what the search was given
                strategy.adopt(trial.trial_id, enqueued[trial.trial_id])
            else:
                strategy.suggest(trial.trial_id)
        if trial.state.is_finished and (trial.trial_id > last_suggested or trial.trial_id in pending):
            strategy.observe(trial.trial_id, trial.value, trial.state)
