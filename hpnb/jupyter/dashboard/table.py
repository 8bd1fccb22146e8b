"""The leaderboard as a table: columns, one page of rows, sorted by any column.

Pure data from store records (sorting and ranks are those of the Lab view's
routes, :mod:`hpnb.views.columns`), so a search of 10,000 trials
sends one page of rows, never all of them. With several objectives the metric's
column is one column per objective and a Pareto rank (0: on the front), and the
rank is the summary's order: Pareto rank, then crowding distance. A trial whose configuration
ran more than once (a noisy search) shows, after its own score, the mean of every run of it,
their spread and their count: ``0.21 · 0.25 ± 0.03 (mean of 3 runs)``.

Example:
    >>> page = table_page([], "min", "RUNNING", ["lr"], "loss", now=0.0)
    >>> [label for _, label in page.columns]
    ['rank', 'trial', 'loss', 'state', 'duration', 'started', 'lr']
    >>> page.total, page.pages
    (0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hpnb.core.analysis.humane_time import clock_time, duration
from hpnb.core.constraints import INFEASIBLE, Constraint, is_feasible
from hpnb.core.objectives import Objective
from hpnb.core.repeats import Runs, spread_text
from hpnb.core.store.records import TrialRecord
from hpnb.core.summary import (
    ExperimentState,
    Ranking,
    finished_runs,
    pareto_ranks,
    ranked,
    trial_score,
    trial_scores,
    trial_state,
)
from hpnb.jupyter.dashboard.data import format_value
from hpnb.views.columns import PARAM_PREFIX, sort_key_names, sorted_trials, trial_duration
from hpnb.views.ranking import SearchRanking, is_partial, rank_trials, tied_ranks

#: rows on one page of the table.
PAGE_ROWS = 15
#: with several objectives: an objective's column is this prefix and its name; then the Pareto rank.
OBJECTIVE_PREFIX = "objective:"
PARETO_RANK = "pareto_rank"


@dataclass(frozen=True)
class TablePage:
    """One page of the table: ``columns`` are (sort key, label); one row of texts per trial."""

    columns: list[tuple[str, str]]
    rows: list[list[str]]
    trial_ids: list[int]
    states: list[str]
    sort: str
    descending: bool
    page: int
    pages: int
    total: int


def columns(metric: str, param_names: Sequence[str],
            objectives: Sequence[Objective] = ()) -> list[tuple[str, str]]:
    """The table's columns: rank, trial, the metric (several objectives: each, then the Pareto
    rank), state, duration, start, then each parameter."""
    labels = {"score": metric, "start": "started", PARETO_RANK: "Pareto rank"}
    keys = sort_key_names(param_names)
    if len(objectives) > 1:
        at = keys.index("score")
        keys[at:at + 1] = [*(OBJECTIVE_PREFIX + o.name for o in objectives), PARETO_RANK]

    def label(key: str) -> str:
        for prefix in (PARAM_PREFIX, OBJECTIVE_PREFIX):
            if key.startswith(prefix):
                return key[len(prefix):]
        return labels.get(key, key)

    return [(key, label(key)) for key in keys]


def _by_objectives(trials: Sequence[TrialRecord], objectives: Sequence[Objective], sort: str,
                   descending: bool, now: float, constraints: Sequence[Constraint] = ()) -> list[TrialRecord]:
    """Several objectives: by the summary's order (rank, Pareto rank), or by one objective best
    first (``descending``: worst first); trials without the values last. Other columns as one."""
    if sort in ("rank", PARETO_RANK) or sort.startswith(OBJECTIVE_PREFIX):
        order = ranked(trials, objectives, constraints)
        if sort.startswith(OBJECTIVE_PREFIX):
            at = [o.name for o in objectives].index(sort[len(OBJECTIVE_PREFIX):])
            objective = objectives[at]
            order.sort(key=lambda t: _loss_on(t, objectives, objective, at))
        scored = [t for t in order if trial_scores(t, objectives) is not None]
        return scored[::-1] + order[len(scored):] if descending else order
    return sorted_trials(trials, objectives[0].mode, sort, descending, now)


def _loss_on(trial: TrialRecord, objectives: Sequence[Objective], objective: Objective,
             at: int) -> tuple[int, float, int]:
    scores = trial_scores(trial, objectives)
    return (1, 0.0, trial.trial_id) if scores is None else (0, objective.loss(scores[at]), trial.trial_id)


def _positions(trials: Sequence[TrialRecord], objectives: Sequence[Objective],
               constraints: Sequence[Constraint] = ()) -> dict[int, int]:
    """Trial id -> 1-based place in the summary's order, for trials with every value."""
    scored = [t for t in ranked(trials, objectives, constraints) if trial_scores(t, objectives) is not None]
    return {trial.trial_id: position for position, trial in enumerate(scored, start=1)}


def table_page(
    trials: Sequence[TrialRecord],
    mode: str,
    search_state: str,
    param_names: Sequence[str],
    metric: str,
    *,
    now: float,
    sort: str = "rank",
    descending: bool = False,
    page: int = 0,
    page_rows: int = PAGE_ROWS,
    objectives: Sequence[Objective] = (),
    constraints: Sequence[Constraint] = (),
    ranks: Mapping[int, str] | None = None,
) -> TablePage:
    """Page ``page`` (from 0; clamped to the last) of the trials sorted by column ``sort``.

    An unknown ``sort`` falls back to the rank (a parameter column can vanish when a
    search is reopened with another spec). With several ``objectives``, see :func:`columns`.
    With ``constraints``, infeasible trials rank after the feasible ones and their score says so.
    ``ranks`` (trial id -> ``2 ranks``) is added to the state of trials that span several workers.
    """
    several = len(objectives) > 1
    cols = columns(metric, param_names, objectives)
    if sort not in {key for key, _ in cols}:
        sort, descending = "rank", False
    rank_of: Mapping[int, int | tuple[int, bool]]
    if several:
        ordered = _by_objectives(trials, objectives, sort, descending, now, constraints)
        rank_of = _positions(trials, objectives, constraints)
        fronts = pareto_ranks(trials, objectives, constraints)
    else:
        ranking: Ranking | SearchRanking = mode
        if constraints:
            score = Objective("score", "max" if mode == "max" else "min")
            ranking = rank_trials(trials, (score,), constraints)
        ordered = sorted_trials(trials, ranking, sort, descending, now)
        rank_of, fronts = tied_ranks(trials, mode, constraints), {}
    goal = Objective(metric, "max" if mode == "max" else "min")
    repeated = {} if several else repeated_runs(trials, goal, constraints)
    pages = max(1, -(-len(ordered) // page_rows))
    page = min(max(0, page), pages - 1)
    shown = ordered[page * page_rows:(page + 1) * page_rows]
    search = ExperimentState(search_state)
    rows, states = [], []
    for trial in shown:
        state = trial_state(trial, search)
        states.append(state)
        cells = _cells(trial, state, rank_of.get(trial.trial_id), param_names, now,
                       repeated.get(trial.trial_id))
        if constraints and cells[2] and not is_feasible(trial, constraints):
            cells[2] += f" {INFEASIBLE}"
        if ranks and trial.trial_id in ranks:
            cells[3] += f" \u00b7 {ranks[trial.trial_id]}"
        rows.append(_with_objectives(cells, trial, objectives, fronts) if several else cells)
    return TablePage(cols, rows, [t.trial_id for t in shown], states, sort, descending, page, pages,
                     len(ordered))


def repeated_runs(trials: Sequence[TrialRecord], objective: Objective,
                  constraints: Sequence[Constraint] = ()) -> dict[int, tuple[float, Runs]]:
    """Trial id -> (mean score, runs) for every (feasible) trial whose configuration finished more
    than once."""
    out: dict[int, tuple[float, Runs]] = {}
    for runs in finished_runs(trials, objective, constraints):
        if runs.count > 1:
            out.update({tid: (objective.loss(runs.mean), runs) for tid in runs.trial_ids})
    return out


def _rank_text(rank: int | tuple[int, bool] | None) -> str:
    if rank is None:
        return ""
    if isinstance(rank, tuple):
        return f"{rank[0]} (tied)" if rank[1] else str(rank[0])
    return str(rank)


def _cells(trial: TrialRecord, state: str, rank: int | tuple[int, bool] | None,
           param_names: Sequence[str], now: float, repeated: tuple[float, Runs] | None = None) -> list[str]:
    value = trial_score(trial)
    score = "" if value is None else format_value(value) + (" (partial)" if is_partial(trial) else "")
    if repeated is not None:
        mean, runs = repeated
        score += f" \u00b7 {format_value(mean)}{spread_text(runs.count, runs.std, format_value)}"
    return [
        _rank_text(rank),
        str(trial.trial_id),
        score,
        state,
        duration(trial_duration(trial, now)),
        clock_time(trial.start, now=now),
        *(format_value(trial.params[name]) if name in trial.params else "" for name in param_names),
    ]


def _with_objectives(cells: list[str], trial: TrialRecord, objectives: Sequence[Objective],
                     fronts: Mapping[int, int]) -> list[str]:
    """A row's cells with the metric's cell replaced by each objective's value and the Pareto rank."""
    scores = trial_scores(trial, objectives)
    values = [format_value(v) for v in scores] if scores is not None else [""] * len(objectives)
    rank = fronts.get(trial.trial_id)
    return [*cells[:2], *values, "" if rank is None else str(rank), *cells[3:]]
