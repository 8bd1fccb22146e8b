"""One summary of a search: its state, progress, best trial and whether it is alive.

Every front end (the ``Search`` handle, the command line, the notebook
dashboard, the REST routes and so the JupyterLab sidebar) renders what this
module computes from store records, so they all name the same state and the
same best trial.

- **State**: the stored state, except that a search stored as RUNNING whose
  driver died (a killed kernel, a closed laptop) is INTERRUPTED, whatever host
  reads it (:mod:`hpnb.core.liveness`: its heartbeat, and on its host its process).
- **Score** of a trial: its latest value of the target metric (for a finished
  trial, its final one); a FAILED trial has none. **Rank**: by score (``mode``),
  trials without one last, ties to the lower trial id. **Best trial**: the first
  in rank with a score. In a **noisy** search (``noise: true``, or a configuration that gave
  different results when run again) the best is the configuration of best estimated mean over
  its runs (:mod:`hpnb.core.repeats`), named by its first trial, its value the mean of its runs.
- With **several objectives** (``metrics:``) a trial's scores are its latest value
  of each (none unless it has them all); trials rank by non-domination, then by
  crowding distance (NSGA-II's order, :mod:`hpnb.core.non_domination`), unscored last. There
  is no best trial: the **front** is the trials of rank 0.
- With **constraints** (``constraints:``), a trial that does not satisfy them all is infeasible
  (:func:`hpnb.core.constraints.is_feasible`): it ranks after every feasible trial with a score,
  is never the best trial and never on the front.
- Trials a dead driver left RUNNING are shown as INTERRUPTED, never as running.

Example:
    >>> from hpnb.core.store import ExperimentRecord
    >>> record = ExperimentRecord(1, "demo", {}, None, "RUNNING", 10, None, "loss", "min", "random",
    ...                           0.0, 5.0, None, False, None, None, "host:1", heartbeat=5.0)
    >>> experiment_state(record, now=6.0), experiment_state(record, now=60.0)
    (<ExperimentState.RUNNING: 'RUNNING'>, <ExperimentState.INTERRUPTED: 'INTERRUPTED'>)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hpnb.core.constraints import Constraint, is_feasible, record_constraints
from hpnb.core.liveness import HEARTBEAT_INTERVAL as HEARTBEAT_INTERVAL  # shown here with the state
from hpnb.core.liveness import STALE_AFTER as STALE_AFTER
from hpnb.core.liveness import driver_alive as driver_alive
from hpnb.core.liveness import experiment_state as experiment_state
from hpnb.core.liveness import heartbeat_age as heartbeat_age
from hpnb.core.liveness import trial_state as trial_state
from hpnb.core.non_domination import non_domination_ranks, pareto_order
from hpnb.core.objectives import Objective, losses, objective_values
from hpnb.core.repeats import Runs, best_runs, group_runs, is_noisy
from hpnb.core.store.owners import owner_group
from hpnb.core.store.records import ExperimentRecord, TrialRecord
from hpnb.core.store.store import Store
from hpnb.core.trial import ExperimentState as ExperimentState  # defined with TrialState, shown here
from hpnb.core.trial import TrialState

#: the most trials of a Pareto front a summary lists (its size is always given).
MAX_FRONT_SHOWN = 1_000
_FAILED = TrialState.FAILED.value
#: the stored states of trials that ended.
FINISHED = frozenset(s.value for s in TrialState if s.is_finished)
#: how trials are ranked: the mode of the one target (``trial.value``), or the objectives.
Ranking = str | Sequence[Objective]


def trial_score(trial: TrialRecord) -> float | None:
    """The number a trial is ranked by: its latest target value; None when failed or not finite."""
    value = trial.value
    if trial.state == _FAILED or value is None or not math.isfinite(value):
        return None
    return value


def record_objectives(record: ExperimentRecord) -> tuple[Objective, ...]:
    """What the search of ``record`` optimises (its spec's ``metrics``, else its metric and mode)."""
    several = record.spec.get("metrics") if isinstance(record.spec, dict) else None
    if isinstance(several, list) and len(several) > 1:
        return tuple(Objective(str(o["name"]), "max" if o.get("mode") == "max" else "min") for o in several)
    return (Objective(record.metric, "max" if record.mode == "max" else "min"),)


def trial_scores(trial: TrialRecord, objectives: Sequence[Objective]) -> tuple[float, ...] | None:
    """A trial's score on each objective (its latest values); None when failed or one is missing.
    With one objective: its :func:`trial_score`."""
    if len(objectives) == 1:
        score = trial_score(trial)
        return None if score is None else (score,)
    if trial.state == TrialState.FAILED.value:
        return None
    return objective_values(trial.metrics, objectives)


def _single_objective(ranking: Ranking) -> Objective | None:
    """The one objective trials rank by; None with several."""
    if isinstance(ranking, str):
        return Objective("score", "max" if ranking == "max" else "min")
    return ranking[0] if len(ranking) == 1 else None


def ranked(trials: Iterable[TrialRecord], ranking: Ranking,
           constraints: Sequence[Constraint] = ()) -> list[TrialRecord]:
    """Trials best first: by score for a mode ("min" or "max") or one objective, by Pareto rank
    then crowding distance for several; infeasible ones after the feasible, unscored last; ties
    to the lower id."""
    objective = _single_objective(ranking)
    if objective is None:
        return pareto_ranking(list(trials), ranking, constraints)[0]  # type: ignore[arg-type]

    def key(trial: TrialRecord) -> tuple[int, float, int]:
        score = trial_score(trial)
        if score is None:
            return (2, 0.0, trial.trial_id)
        return (0 if is_feasible(trial, constraints) else 1, objective.loss(score), trial.trial_id)

    return sorted(trials, key=key)


def _scored(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
            constraints: Sequence[Constraint] = ()) -> tuple[list[TrialRecord], list[tuple[float, ...]]]:
    """The feasible trials with scores on every objective, and those scores as losses (to minimise)."""
    kept, points = [], []
    for trial in trials:
        scores = trial_scores(trial, objectives)
        if scores is not None and is_feasible(trial, constraints):
            kept.append(trial)
            points.append(losses(scores, objectives))
    return kept, points


def pareto_ranking(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
                   constraints: Sequence[Constraint] = ()) -> tuple[list[TrialRecord], dict[int, int]]:
    """:func:`ranked` and :func:`pareto_ranks` of several objectives at once (their ranks are
    computed once): the trials in rank order, and trial id -> non-domination rank (feasible
    trials only; the infeasible ones with every score follow them, by id)."""
    by_id = sorted(trials, key=lambda t: t.trial_id)
    kept, points = _scored(by_id, objectives, constraints)
    ranks = non_domination_ranks(points)
    scored_ids = {t.trial_id for t in kept}
    rest = [t for t in by_id if t.trial_id not in scored_ids]
    infeasible = [t for t in rest if trial_scores(t, objectives) is not None]
    unscored = [t for t in rest if trial_scores(t, objectives) is None]
    order = [kept[i] for i in pareto_order(points, ranks)] + infeasible + unscored
    return order, {t.trial_id: rank for t, rank in zip(kept, ranks, strict=True)}


def pareto_ranks(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
                 constraints: Sequence[Constraint] = ()) -> dict[int, int]:
    """Trial id -> non-domination rank (0: on the front), for the feasible trials with every score."""
    kept, points = _scored(trials, objectives, constraints)
    return {t.trial_id: rank for t, rank in zip(kept, non_domination_ranks(points), strict=True)}


def pareto_front(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
                 constraints: Sequence[Constraint] = ()) -> list[TrialRecord]:
    """The feasible trials no other feasible trial beats on every objective, best first on the
    first objective."""
    kept, points = _scored(trials, objectives, constraints)
    front = [i for i, rank in enumerate(non_domination_ranks(points)) if rank == 0]
    return [kept[i] for i in sorted(front, key=lambda i: (points[i][0], kept[i].trial_id))]


def best_trial(trials: Iterable[TrialRecord], ranking: Ranking,
               constraints: Sequence[Constraint] = ()) -> TrialRecord | None:
    """The best-ranked feasible trial with a score, or None (always None with several objectives:
    they have a front, see :func:`pareto_front`)."""
    objective = _single_objective(ranking)
    if objective is None:
        return None
    order = ranked(trials, (objective,), constraints)
    first = order[0] if order else None
    return first if first is not None and trial_score(first) is not None and is_feasible(
        first, constraints) else None


@dataclass(frozen=True)
class Best:
    """The search's best: its trial, its value (a noisy search: the mean of the configuration's
    runs), how many runs of its configuration finished and their standard deviation."""

    trial: TrialRecord
    value: float
    runs: int = 1
    std: float | None = None


def is_noisy_search(record: ExperimentRecord) -> bool:
    """Whether the search's spec says its metric is noisy (``noise: true``)."""
    return isinstance(record.spec, dict) and record.spec.get("noise") is True


def finished_runs(trials: Iterable[TrialRecord], objective: Objective,
                  constraints: Sequence[Constraint] = ()) -> list[Runs]:
    """The finished, scored (and feasible) trials grouped by configuration, as losses of ``objective``."""
    return group_runs((t.trial_id, t.params, objective.loss(score)) for t in trials
                      if t.state in FINISHED and (score := trial_score(t)) is not None
                      and is_feasible(t, constraints))


def search_best(trials: Sequence[TrialRecord], objective: Objective, noise: bool = False,
                constraints: Sequence[Constraint] = ()) -> Best | None:
    """The best feasible result of a search with one ``objective``: the best trial, or for a noisy
    search (``noise``, or repeats that differ) the configuration of best estimated mean over its runs."""
    runs = finished_runs(trials, objective, constraints)
    if noise or is_noisy(runs):
        chosen = best_runs(runs)
        if chosen is not None:
            trial = next(t for t in trials if t.trial_id == chosen.trial_ids[0])
            value = objective.loss(chosen.mean)  # a loss is its own inverse: back to the score
            return Best(trial, value, chosen.count, chosen.std)
    best = best_trial(trials, (objective,), constraints)
    if best is None:
        return None
    score = trial_score(best)
    return None if score is None else Best(best, score)


def record_best(record: ExperimentRecord, trials: Sequence[TrialRecord]) -> Best | None:
    """:func:`search_best` of a stored search (None with several objectives: they have a front)."""
    objectives = record_objectives(record)
    if len(objectives) > 1:
        return None
    return search_best(trials, objectives[0], is_noisy_search(record), record_constraints(record))


@dataclass(frozen=True)
class SearchSummary:
    """What every front end shows of a search."""

    name: str
    state: ExperimentState
    metric: str
    mode: str
    strategy: str
    budget: int
    parallel: int | None
    counts: dict[str, int]
    created: float
    updated: float
    elapsed: float
    message: str | None
    driver: str | None
    best_trial: int | None = None
    best_value: float | None = None
    best_params: dict[str, Any] = field(default_factory=dict)
    #: what the search optimises; with several objectives there is no best trial but a front
    objectives: tuple[Objective, ...] = ()
    #: the front's trials (at most MAX_FRONT_SHOWN): ``{"trial_id", "values", "params"}``
    front: tuple[dict[str, Any], ...] = ()
    #: how many trials the front has
    front_size: int = 0
    #: what a strategy that chooses (``auto``) chose and why, e.g. ``gp: 40 trials, 6 continuous parameters``
    strategy_choice: str | None = None
    #: finished runs of the best configuration (a noisy search runs some again) and their spread
    best_runs: int = 1
    best_std: float | None = None
    #: the per-trial resource that lets fewer trials run at once than ``parallel`` asks
    #: ("4 running, limited by gpu"); known to the process that drives the search, else None
    limited_by: str | None = None
    #: the search's constraints (``constraints:``), and how many ended trials fail them
    constraints: tuple[Constraint, ...] = ()
    infeasible: int = 0
    #: who started it (``user@host``), None for a search stored before owners were kept
    owner: str | None = None

    @property
    def group(self) -> str:
        """``mine`` (started by this user on this host) or ``team`` (see :mod:`hpnb.core.store.owners`)."""
        return owner_group(self.owner)

    @property
    def is_multi_objective(self) -> bool:
        return len(self.objectives) > 1

    @property
    def done(self) -> int:
        """Trials that ended: completed, stopped or failed."""
        return sum(self.count(s) for s in TrialState if s.is_finished)

    def count(self, state: TrialState | ExperimentState) -> int:
        """How many trials show ``state`` (INTERRUPTED: those a dead driver left unfinished)."""
        return self.counts.get(state.value, 0)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the REST routes, ``hpnb list --json``)."""
        best = None if self.best_trial is None else {
            "trial_id": self.best_trial, "value": self.best_value, "params": self.best_params,
            "runs": self.best_runs, "std": self.best_std}
        return {
            "name": self.name, "state": self.state.value, "active": self.state.is_active,
            "resumable": self.state.is_resumable, "metric": self.metric, "mode": self.mode,
            "strategy": self.strategy, "budget": self.budget, "parallel": self.parallel,
            "done": self.done, **{state.lower(): n for state, n in self.counts.items()},
            "best": best, "created": self.created, "updated": self.updated, "elapsed": self.elapsed,
            "message": self.message, "driver": self.driver,
            "objectives": [o.to_dict() for o in self.objectives], "front": list(self.front),
            "front_size": self.front_size, "strategy_choice": self.strategy_choice,
            "limited_by": self.limited_by,
            "constraints": [{"metric": c.metric, **c.to_dict()} for c in self.constraints],
            "infeasible": self.infeasible, "owner": self.owner, "group": self.group,
        }


def summarize(record: ExperimentRecord, trials: Sequence[TrialRecord], now: float) -> SearchSummary:
    """The summary of ``record`` with its ``trials`` at ``now`` (epoch seconds)."""
    state = experiment_state(record, now)
    counts = {s.value: 0 for s in TrialState} | {ExperimentState.INTERRUPTED.value: 0}
    for trial in trials:
        shown = trial_state(trial, state)
        counts[shown] = counts.get(shown, 0) + 1
    end = now if state.is_active else max(record.updated, record.created)
    objectives = record_objectives(record)
    constraints = record_constraints(record)
    best = record_best(record, trials)
    front = pareto_front(trials, objectives, constraints) if len(objectives) > 1 else []
    return SearchSummary(
        name=record.name, state=state, metric=record.metric, mode=record.mode, strategy=record.strategy,
        budget=record.budget, parallel=record.parallel, counts=counts, created=record.created,
        updated=record.updated, elapsed=max(0.0, end - record.created), message=record.message,
        driver=record.driver, best_trial=None if best is None else best.trial.trial_id,
        best_value=None if best is None else best.value,
        best_params={} if best is None else dict(best.trial.params), objectives=objectives,
        best_runs=1 if best is None else best.runs, best_std=None if best is None else best.std,
        front=tuple(front_entry(t, objectives) for t in front[:MAX_FRONT_SHOWN]), front_size=len(front),
        strategy_choice=strategy_choice(record.strategy_state), constraints=constraints,
        infeasible=_infeasible(trials, constraints), owner=record.owner,
    )


def _infeasible(trials: Sequence[TrialRecord], constraints: Sequence[Constraint]) -> int:
    """How many finished trials that did not fail are infeasible."""
    if not constraints:
        return 0
    return sum(1 for t in trials if t.state in _ENDED_WELL and not is_feasible(t, constraints))


_ENDED_WELL = {TrialState.COMPLETED.value, TrialState.STOPPED.value}


def strategy_choice(saved: Mapping[str, Any] | None) -> str | None:
    """What ``auto`` chose and why, from a search's saved strategy state (None for other strategies).

    Example:
        >>> strategy_choice({"strategy": {"strategy": "auto", "choice": "tpe", "reason": "gp: 300 trials"}})
        'gp: 300 trials; now tpe'
    """
    state = (saved or {}).get("strategy") or {}
    reason = state.get("reason")
    if not isinstance(reason, str):
        return None
    current = state.get("choice")
    return reason if not current or reason.startswith(f"{current}:") else f"{reason}; now {current}"


def with_limit(summary: SearchSummary, slots: Mapping[str, Any] | None) -> SearchSummary:
    """``summary`` saying what limits its running count, from the driver's latest ``slots`` event
    (``{"data": {"slots": 4, "limited_by": "gpu"}}``), while the search is active.

    Example:
        >>> s = SearchSummary(name="s", state=ExperimentState.RUNNING, metric="loss", mode="min",
        ...                   strategy="random", budget=8, parallel=8, counts={}, created=0.0,
        ...                   updated=0.0, elapsed=0.0, message=None, driver=None)
        >>> with_limit(s, {"kind": "slots", "data": {"slots": 4, "limited_by": "gpu"}}).limited_by
        'gpu'
    """
    if summary.limited_by is not None or slots is None or not summary.state.is_active:
        return summary
    limited = (slots.get("data") or {}).get("limited_by")
    return replace(summary, limited_by=limited) if isinstance(limited, str) else summary


def latest_event(events: Sequence[Mapping[str, Any]], kind: str) -> Mapping[str, Any] | None:
    """The newest of ``events`` (oldest first, as the store gives them) of ``kind``, or None."""
    return next((e for e in reversed(events) if e.get("kind") == kind), None)


def front_entry(trial: TrialRecord, objectives: Sequence[Objective]) -> dict[str, Any]:
    """A trial of the front as the summary lists it: its id, objective values and parameters."""
    scores = trial_scores(trial, objectives) or ()
    values = {o.name: v for o, v in zip(objectives, scores, strict=True)}
    return {"trial_id": trial.trial_id, "values": values, "params": dict(trial.params)}


def store_summaries(store: Store, now: float) -> list[SearchSummary]:
    """The summary of every search in ``store``, newest first."""
    return [summarize(record, store.trials(record.id), now) for record in store.experiments()]
