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
import logging
import sys
from collections.abc import Sequence

from hpnb.core.errors import HpnbError

#: the logger the store says its waits with (see hpnb.core.store.answers); named here, so that
#: a command's start does not import the store.
STORE_LOGGER = "hpnb.store"

#: sub-command modules, in the order ``hpnb --help`` lists them.
COMMANDS: tuple[str, ...] = ("demo", "run", "check", "list", "show", "control", "export", "imports",
                            "store")


#: the commands to a running search, each answered by the one module that defines it: their
#: parser is built without importing every other command's (a command's latency is mostly its start).
COMMAND_MODULES: dict[str, str] = dict.fromkeys(("stop", "pause", "extend", "parallel"), "control")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of the module ``only`` alone."""
    from hpnb import __version__

    parser = argparse.ArgumentParser(prog="hpnb", description="Hyperparameter search for notebooks.")
    parser.add_argument("--version", action="version", version=f"hpnb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"hpnb.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``hpnb`` command; returns its exit code (2 for bad input)."""
    given = [*(sys.argv[1:] if argv is None else argv)]  # not list(): hpnb.cli.list is a module here
    parser = build_parser(COMMAND_MODULES.get(given[0]) if given else None)
    args = parser.parse_args(given)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    said = _say_store_waits(args.command)
    try:
        return int(args.func(args))
    except HpnbError as err:
        print(f"hpnb {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        logging.getLogger(STORE_LOGGER).removeHandler(said)


def _say_store_waits(command: str) -> logging.Handler:
    """Print the store's waits for its server (a restart, a network cut) on stderr, as the
    command's own lines: ``hpnb list: the store at db:5432 has not answered since 14:02:05 ...``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"hpnb {command}: %(message)s"))
    logging.getLogger(STORE_LOGGER).addHandler(handler)
    return handler
