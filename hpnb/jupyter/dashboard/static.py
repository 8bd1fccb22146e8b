"""The static view of a search kept in saved notebooks: a text summary and an HTML table.

Shown where widgets are not (nbconvert, nbval, GitHub, a closed kernel). The
text deliberately leaves out times so that a re-run of a seeded search prints
the same summary. A search with several objectives has no best trial: both list
its Pareto front instead (the table gets a column per objective and the Pareto rank).

Example:
    >>> from hpnb.core.summary import ExperimentState, SearchSummary
    >>> from hpnb.jupyter.dashboard.data import Header
    >>> h = Header(SearchSummary("demo", ExperimentState.COMPLETED, "loss", "min", "random", 4, 1,
    ...                          {"COMPLETED": 3, "FAILED": 1}, 0.0, 9.0, 9.0, None, None, 2, 0.25))
    >>> print(summary_text(h, []).splitlines()[0])
    hpnb search 'demo' (random, minimise loss): COMPLETED
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from hpnb.core.analysis.humane_time import duration
from hpnb.core.constraints import INFEASIBLE, constraints_text
from hpnb.core.objectives import goal
from hpnb.core.summary import SearchSummary
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard.data import Failure, Header, LeaderboardRow, format_params, format_value
from hpnb.jupyter.dashboard.pareto_plot import front_text

TOP_ROWS = 5


def _goal(summary: SearchSummary) -> str:
    if summary.is_multi_objective:
        return goal(summary.objectives)
    return f"{'minimise' if summary.mode == 'min' else 'maximise'} {summary.metric}"


def _counts(header: Header) -> str:
    summary = header.summary
    completed, failed, stopped, running = (summary.count(state) for state in (
        TrialState.COMPLETED, TrialState.FAILED, TrialState.STOPPED, TrialState.RUNNING))
    return (f"{summary.done}/{summary.budget} trials done: {completed} completed, "
            f"{failed} failed, {stopped} stopped, {running} running")


def _best(summary: SearchSummary) -> str:
    if summary.is_multi_objective:
        return front_text(summary)
    bounds = f"; constraints {constraints_text(summary.constraints, summary.infeasible)}" \
        if summary.constraints else ""
    if summary.best_value is None:
        return ("best: no feasible trial yet" if summary.infeasible else "best: none yet") + bounds
    return (f"best {summary.metric} = {format_value(summary.best_value)} (trial {summary.best_trial}: "
            f"{format_params(summary.best_params)}){bounds}")


def summary_text(header: Header, rows: Sequence[LeaderboardRow], top: int = TOP_ROWS) -> str:
    """A few lines of plain text: state, counts, best, the top trials."""
    summary = header.summary
    lines = [f"hpnb search {summary.name!r} ({summary.strategy}, {_goal(summary)}): {summary.state.value}",
             _counts(header), _best(summary)]
    if summary.is_multi_objective:
        return "\n".join([*lines, *_front_lines(summary, top)])
    scored = [row for row in rows if row.score is not None][:top]
    if scored:
        lines.append(f"top {len(scored)}:")
        lines.extend(f"  {row.rank}. trial {row.trial_id}: {format_value(row.score)} "
                     f"({format_params(row.params)})" for row in scored)
    return "\n".join(lines)


def _front_lines(summary: SearchSummary, top: int) -> list[str]:
    """The first ``top`` trials of the front (best first on the first objective), and how many more."""
    lines = [f"  trial {entry['trial_id']}: {format_params(entry['values'])} "
             f"({format_params(entry['params'])})" for entry in summary.front[:top]]
    more = summary.front_size - len(lines)
    return lines + ([f"  and {more} more"] if more > 0 else [])


def _cell(value: object) -> str:
    return f"<td>{html.escape(str(value))}</td>"


def _scores(summary: SearchSummary, row: LeaderboardRow) -> list[Any]:
    """A row's metric cell, or with several objectives each one's value and the Pareto rank."""
    if not summary.is_multi_objective:
        mark = "" if row.feasible else f" {INFEASIBLE}"
        return [format_value(row.score) + mark if row.score is not None else ""]
    values = [format_value(row.values[o.name]) if o.name in row.values else "" for o in summary.objectives]
    return [*values, "" if row.pareto_rank is None else row.pareto_rank]


def _table(rows: Sequence[LeaderboardRow], param_names: Sequence[str], summary: SearchSummary) -> str:
    metrics = [o.name for o in summary.objectives] + ["Pareto rank"] if summary.is_multi_objective \
        else [summary.metric]
    head = "".join(f"<th>{html.escape(name)}</th>"
                   for name in ("rank", "trial", *metrics, "state", "duration", *param_names))
    body = []
    for row in rows:
        cells = [row.rank or "", row.trial_id, *_scores(summary, row), row.state, duration(row.duration),
                 *(format_value(row.params[name]) if name in row.params else "" for name in param_names)]
        body.append("<tr>" + "".join(_cell(c) for c in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def summary_html(
    header: Header,
    rows: Sequence[LeaderboardRow],
    param_names: Sequence[str],
    failed: Sequence[Failure] = (),
    top: int = 10,
) -> str:
    """An HTML block: title, counts, best (or the front), a table of the top trials, failed trials folded."""
    summary = header.summary
    parts = [
        '<div class="hpnb-static">',
        f"<h4>hpnb search {html.escape(summary.name)}: {html.escape(summary.state.value)}</h4>",
        f"<p>{html.escape(summary.strategy)}, {html.escape(_goal(summary))}; {html.escape(_counts(header))}; "
        f"elapsed {duration(summary.elapsed)}</p>",
        f"<p>{html.escape(front_text(summary, top) if summary.is_multi_objective else _best(summary))}</p>",
        _table(list(rows)[:top], param_names, summary),
    ]
    for failure in failed[:top]:
        parts.append(
            f"<details><summary>trial {failure.trial_id} failed "
            f"({html.escape(format_params(failure.params))})</summary><pre>{html.escape(failure.error)}</pre></details>"
        )
    parts.append("</div>")
    return "\n".join(parts)
