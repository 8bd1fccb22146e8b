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

from hpnb.cli.store_option import add_store_option, format_number, format_time, open_store
from hpnb.core.frames import experiments_frame


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``list`` on the ``hpnb`` command line."""
    parser = subparsers.add_parser(
        "list",
        help="list the stored experiments",
        description="List the stored experiments: name, state, strategy, progress, best value, created.",
    )
    add_store_option(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the experiments table (exit 0, also for an empty store)."""
    with open_store(args) as store:
        experiments = store.experiments()
        if not experiments:
            print(f"no experiments in {store.path}")
            return 0
        frame = experiments_frame(experiments, store.experiment_stats())
    frame["best"] = frame["best"].map(format_number)
    frame["created"] = frame["created"].map(format_time)
    sys.stdout.write(frame.to_string(index=False) + "\n")
    return 0
