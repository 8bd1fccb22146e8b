"""``hpnb list``: a table of the stored experiments, newest first.

Example:
    >>> from hpnb.cli import main
    >>> main(["list", "--store", "/nonexistent/hpnb.sqlite"])  # doctest: +SKIP
    no experiments in /nonexistent/hpnb.sqlite
    0
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hpnb.cli.store_option import add_store_option, format_number, open_store
from hpnb.core.store.owners import MINE, TEAM


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``list`` on the ``hpnb`` command line."""
    parser = subparsers.add_parser(
        "list",
        help="list the stored experiments",
        description="List the stored experiments: name, owner, state, strategy, progress, best value, "
                    "created; yours first, then the team's.",
    )
    add_store_option(parser)
    parser.add_argument("--json", action="store_true", help="print the searches' summaries as JSON")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the experiments table, or their summaries as JSON (exit 0, also for an empty store)."""
    import json
    import time

    from hpnb.core.frames import experiments_table  # pandas: imported when the command runs
    from hpnb.core.summary import store_summaries

    now = time.time()
    with open_store(args) as store:
        summaries = store_summaries(store, now)
        path = store.location
    if args.json:
        print(json.dumps([summary.to_json() for summary in summaries], indent=1))
        return 0
    if not summaries:
        print(f"no experiments in {path}")
        return 0
    frame = experiments_table(summaries, now)
    frame["best"] = frame["best"].map(format_number)
    groups = [summary.group for summary in summaries]
    for group, title in ((MINE, "mine"), (TEAM, "the team's")):
        rows = frame[[g == group for g in groups]]
        if len(rows) and len(rows) < len(frame):
            sys.stdout.write(f"{title}:\n")
        if len(rows):
            sys.stdout.write(rows.to_string(index=False) + "\n")
    return 0
