"""``hpnb show NAME``: an experiment's summary, its ten best trials and its failures.

Example:
    >>> from hpnb.cli import main
    >>> main(["show", "mlp-lr"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from hpnb.cli.store_option import add_store_option, format_number, format_time, open_store
from hpnb.core.store import ExperimentRecord, TrialRecord
from hpnb.core.summary import ExperimentState, SearchSummary

#: trials in the leaderboard of ``hpnb show``.
TOP = 10
#: lines of each failure's traceback that ``hpnb show`` prints.
FAILURE_LINES = 4


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
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the experiment (exit 0); an unknown name is an error (exit 2, with a suggestion)."""
    import json
    import time

    from hpnb.core.summary import summarize

    with open_store(args) as store:
        experiment = store.experiment(args.name)
        trials = store.trials(experiment.id)
    summary = summarize(experiment, trials, time.time())
    if args.json:
        print(json.dumps(summary.to_json(), indent=1))
        return 0
    lines = [*summary_lines(experiment, summary), "", *leaderboard_lines(experiment, trials)]
    failures = failure_lines(trials)
    if failures:
        lines += ["", *failures]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def summary_lines(experiment: ExperimentRecord, summary: SearchSummary) -> list[str]:
    """Name, state, strategy, metric, progress, times, message and best trial."""
    by_state = ", ".join(f"{state} {n}" for state, n in sorted(summary.counts.items()) if n)
    lines = [
        f"{experiment.name}  [{summary.state.value}]",
        f"  strategy   {experiment.strategy}",
        f"  metric     {experiment.metric} ({experiment.mode})",
        f"  progress   {summary.done}/{experiment.budget} finished" + (f" ({by_state})" if by_state else ""),
        f"  parallel   {experiment.parallel if experiment.parallel is not None else 'cluster slots'}",
        f"  created    {format_time(experiment.created)}",
        f"  updated    {format_time(experiment.updated)}",
    ]
    if experiment.message:
        lines.append(f"  message    {experiment.message}")
    if experiment.stop_requested:
        lines.append("  stop       requested")
    if summary.best_trial is not None:
        params = ", ".join(f"{name}={value!r}" for name, value in summary.best_params.items())
        lines.append(f"  best       trial {summary.best_trial}: {experiment.metric} = "
                     f"{format_number(summary.best_value)}  {params}")
    if summary.state is ExperimentState.INTERRUPTED:  # its driver died: say how to continue
        lines.append(f"  resume     hpnb resume {experiment.name} --objective MODULE:FUNCTION")
    return lines


def leaderboard_lines(experiment: ExperimentRecord, trials: Sequence[TrialRecord]) -> list[str]:
    """The :data:`TOP` best trials as a table."""
    import pandas as pd

    from hpnb.core.frames import TRIAL_COLUMNS, leaderboard

    if not trials:
        return ["no trials yet"]
    board = leaderboard(experiment, trials, top=TOP)
    params = [c for c in board.columns if c not in TRIAL_COLUMNS]
    table = board[["trial_id", "state", "value", "best", "steps", "duration", *params]].copy()
    for column in ("value", "best"):
        table[column] = table[column].map(format_number)
    table["duration"] = table["duration"].map(lambda s: "-" if pd.isna(s) else f"{s:.1f}s")
    shown = min(TOP, len(trials))
    title = f"Leaderboard (top {shown} of {len(trials)}; value = {experiment.metric}, {experiment.mode})"
    return [title, *("  " + line for line in table.to_string(index=False).splitlines())]


def failure_lines(trials: Sequence[TrialRecord]) -> list[str]:
    """Each failed trial with the last lines of its traceback (where it was raised, and the error)."""
    failed = [t for t in trials if t.state == "FAILED"]
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
