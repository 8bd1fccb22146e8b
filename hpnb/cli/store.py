"""``hpnb store copy SRC DST``: copy searches between stores (a SQLite file, a PostgreSQL database).

Example:
    >>> from hpnb.cli import main
    >>> main(["store", "copy", "~/.hpnb/hpnb.sqlite", "postgresql://me@db:5432/team"])  # doctest: +SKIP
    copied 12 searches from /home/me/.hpnb/hpnb.sqlite to postgresql://me@db:5432/team
    0
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``store`` (with its ``copy`` action) on the ``hpnb`` command line."""
    parser = subparsers.add_parser("store", help="work on whole stores (copy searches between them)",
                                   description="Work on whole stores.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    copy = actions.add_parser(
        "copy", help="copy searches from one store to another",
        description="Copy every search of SRC (or those named with --name) into DST, with its trials, "
                    "results, trial output, events, commands and checkpoint references. A store is a "
                    "SQLite file or postgresql://user@host:5432/db (the password from the URL, PGPASSWORD "
                    "or ~/.pgpass).")
    copy.add_argument("source", metavar="SRC", help="the store to copy from (read only)")
    copy.add_argument("target", metavar="DST", help="the store to copy into (created when missing)")
    copy.add_argument("--name", action="append", metavar="NAME", help="copy only this search (repeatable)")
    copy.set_defaults(func=run_copy)
    return parser


def run_copy(args: argparse.Namespace) -> int:
    """Copy, then print what was copied; a search the target has already stops the copy (exit 2)."""
    from hpnb.core.store import Store
    from hpnb.core.store.copy import copy_store

    with Store(args.source, readonly=True) as source, Store(args.target) as target:
        copied = copy_store(source, target, args.name)
        print(f"copied {len(copied)} search{'es' if len(copied) != 1 else ''} from {source.location} "
              f"to {target.location}")
    return 0
