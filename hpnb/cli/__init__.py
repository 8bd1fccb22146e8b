"""The ``hpnb`` command line: one module per sub-command.

Each sub-command module defines ``add_parser(subparsers)`` (which sets
``func`` on its parser) and returns an exit code from ``func(args)``.

Example:
    >>> from hpnb.cli import main
    >>> main(["--version"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from hpnb.core.errors import HpnbError

#: sub-command modules, in the order ``hpnb --help`` lists them.
COMMANDS: tuple[str, ...] = ("demo", "run", "check", "list", "show", "control", "export", "imports",
                            "store")


def build_parser() -> argparse.ArgumentParser:
    from hpnb import __version__

    parser = argparse.ArgumentParser(prog="hpnb", description="Hyperparameter search for notebooks.")
    parser.add_argument("--version", action="version", version=f"hpnb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"hpnb.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``hpnb`` command; returns its exit code (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except HpnbError as err:
        print(f"hpnb {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
