"""``hpnb show NAME``: an experiment's summary, its ten best trials and its failures; with several
objectives, its Pareto front and a leaderboard by front, then crowding distance. (The terminal's
side of showing a search; ``hpnb.show(name)``, :mod:`hpnb.jupyter.show`, is the notebook's.)

Example:
    >>> from hpnb.cli import main
    >>> main(["show", "mlp-lr"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from hpnb.cli.show_importance import add_importance_option, show_importance
from hpnb.cli.store_option import add_store_option, format_number, open_store
from hpnb.core.analysis.humane_time import clock_time, duration, relative_time
from hpnb.core.constraints import constraints_text
from hpnb.core.objectives import describe
from hpnb.core.repeats import spread_text
from hpnb.core.store import ExperimentRecord, TrialRecord
from hpnb.core.summary import SearchSummary, record_objectives
from hpnb.core.trial import ExperimentState, TrialState

#: trials in the leaderboard of ``hpnb show``.
TOP = 10
#: lines of each failure's traceback that ``hpnb show`` prints.
FAILURE_LINES = 4
#: the column of a search with constraints that says whether a trial satisfies them.
FEASIBLE = "feasible"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``show`` on the ``hpnb`` command line."""
    parser = subparsers.add_parser(
        "show",
        help="show one experiment: summary, leaderboard, failures",
        description=f"Show an experiment: its summary, its {TOP} best trials, the errors of failed trials.",
    )
    parser.add_argument("name", help="the experiment's name")
    add_store_option(parser)
    parser.add_argument("--json", action="store_true", help="print the search's summary as JSON")
    add_importance_option(parser)
    parser.add_argument("--trial", type=int, metavar="ID",
                        help="show what trial ID printed, its traceback, worker and peak memory")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the experiment (exit 0); an unknown name is an error (exit 2, with a suggestion)."""
    import json
    import time

    from hpnb.core.summary import summarize

    if getattr(args, "trial", None) is not None:
        from hpnb.cli.show_trial import show_trial

        return show_trial(args)
    if getattr(args, "importance", None) is not None:
        return show_importance(args)
    with open_store(args) as store:
        experiment = store.experiment(args.name)
        trials = store.trials(experiment.id)
    summary = summarize(experiment, trials, time.time())
    if args.json:
        print(json.dumps(summary.to_json(), indent=1))
        return 0
    lines = [*summary_lines(experiment, summary), "", *leaderboard_lines(experiment, trials)]
    front = front_lines(experiment, trials)
    if front:
        lines += ["", *front]
    failures = failure_lines(trials)
    if failures:
        lines += ["", *failures]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def summary_lines(experiment: ExperimentRecord, summary: SearchSummary) -> list[str]:
    """Name, state, strategy, metric, progress, times, message and best trial."""
    by_state = ", ".join(f"{state} {n}" for state, n in sorted(summary.counts.items()) if n)
    goal = (f"  metrics    {describe(summary.objectives)}" if summary.is_multi_objective
            else f"  metric     {experiment.metric} ({experiment.mode})")
    chose = f" ({summary.strategy_choice})" if summary.strategy_choice else ""
    lines = [
        f"{experiment.name}  [{summary.state.value}]",
        f"  strategy   {experiment.strategy}{chose}",
        goal,
        f"  progress   {summary.done}/{experiment.budget} finished" + (f" ({by_state})" if by_state else ""),
        f"  parallel   {experiment.parallel if experiment.parallel is not None else 'cluster slots'}",
        f"  created    {clock_time(experiment.created)} ({relative_time(experiment.created)})",
        f"  updated    {relative_time(experiment.updated)}",
        f"  elapsed    {duration(summary.elapsed)}",
    ]
    if experiment.message:
        lines.append(f"  message    {experiment.message}")
    if experiment.stop_requested:
        lines.append("  stop       requested")
    lines += constraint_lines(summary)
    if summary.best_trial is not None:
        params = ", ".join(f"{name}={value!r}" for name, value in summary.best_params.items())
        spread = spread_text(summary.best_runs, summary.best_std, format_number)
        lines.append(f"  best       trial {summary.best_trial}: {experiment.metric} = "
                     f"{format_number(summary.best_value)}{spread}  {params}")
    elif summary.constraints and summary.infeasible and not summary.is_multi_objective:
        lines.append("  best       none: no feasible trial yet")
    if summary.is_multi_objective:
        lines.append(f"  front      {summary.front_size} trial{'' if summary.front_size == 1 else 's'} "
                     "(no single best: see Pareto front below)")
    if summary.state is ExperimentState.INTERRUPTED:  # its driver died: say how to continue
        lines.append(f"  resume     hpnb resume {experiment.name} --objective MODULE:FUNCTION")
    return lines


def constraint_lines(summary: SearchSummary) -> list[str]:
    """The constraints, and how many ended trials fail them (none without constraints)."""
    if not summary.constraints:
        return []
    return [f"  constraints {constraints_text(summary.constraints, summary.infeasible)}"]


def leaderboard_lines(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[str]:
    """The :data:`TOP` best trials as a table."""

    from hpnb.core.frames import TRIAL_COLUMNS, leaderboard

    if not trials:
        return ["no trials yet"]
    objectives = record_objectives(experiment)
    board = leaderboard(experiment, trials, top=TOP)
    goals = ["value", "best"] if len(objectives) == 1 else [*(o.name for o in objectives), "pareto_rank"]
    params = [c for c in board.columns if c not in (*TRIAL_COLUMNS, *goals, FEASIBLE)]
    shown = min(TOP, len(trials))
    if len(objectives) == 1:
        title = f"Leaderboard (top {shown} of {len(trials)}; value = {experiment.metric}, {experiment.mode})"
    else:
        title = (f"Leaderboard (top {shown} of {len(trials)}; by Pareto rank, then crowding distance; "
                 f"{describe(objectives)})")
    if FEASIBLE in board:
        title += "; infeasible trials after the feasible ones"
    columns = ["trial_id", "state", *goals, FEASIBLE, "steps", "duration", *params]
    return [title, *_table_lines(board, columns, goals)]


def front_lines(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[str]:
    """The trials of the Pareto front, best first on the first objective (several objectives only)."""
    from hpnb.core.frames import TRIAL_COLUMNS, pareto_frame

    objectives = record_objectives(experiment)
    if len(objectives) == 1 or not trials:
        return []
    front = pareto_frame(experiment, trials)
    goals = [o.name for o in objectives]
    params = [c for c in front.columns if c not in (*TRIAL_COLUMNS, *goals, "pareto_rank", FEASIBLE)]
    title = f"Pareto front ({len(front)} trial{'' if len(front) == 1 else 's'}; {describe(objectives)})"
    if front.empty:
        return [title, "  no trial has every objective yet"]
    return [title, *_table_lines(front, ["trial_id", "state", *goals, *params], goals)]


def _table_lines(frame: Any, columns: list[str], numbers: list[str]) -> list[str]:
    import pandas as pd

    table = frame[[c for c in columns if c in frame.columns]].copy()
    for column in numbers:
        if column in table and column != "pareto_rank":
            table[column] = table[column].map(format_number)
    if "duration" in table:
        table["duration"] = table["duration"].map(lambda s: duration(None if pd.isna(s) else float(s)))
    return ["  " + line for line in table.to_string(index=False).splitlines()]


def failure_lines(trials: Sequence[TrialRecord]) -> list[str]:
    """Each failed trial with the last lines of its traceback (where it was raised, and the error)."""
    failed = [t for t in trials if t.state == TrialState.FAILED]
    if not failed:
        return []
    lines = [f"Failures ({len(failed)})"]
    for trial in failed:
        retries = f" (retries {trial.retries})" if trial.retries else ""
        lines.append(f"  trial {trial.trial_id}{retries}: {_params_text(trial.params)}")
        error = [line for line in (trial.error or "no error recorded").splitlines() if line.strip()]
        if error and error[0].startswith("Traceback (most recent call last)"):
            error = error[-FAILURE_LINES:]
        else:
            error = error[:FAILURE_LINES]
        lines.extend("    " + line for line in error)
    return lines


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in params.items())
