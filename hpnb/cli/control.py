"""``hpnb stop``, ``hpnb pause``, ``hpnb extend`` and ``hpnb parallel``: steer a search from a terminal.

Each sends a command through the store (:mod:`hpnb.core.control`) to the search's driver, wherever
it runs (a kernel, a detached process), and prints the driver's answer: what it did, or why it
refused (exit 2). ``hpnb resume NAME --trial N`` (in :mod:`hpnb.cli.run`) resumes a paused trial
the same way. No port is opened: the store is the channel.

Example:
    >>> from hpnb.cli import main
    >>> main(["extend", "mlp-lr", "10"])  # doctest: +SKIP
    search 'mlp-lr' has a budget of 50 trials now (+10)
    0
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from hpnb.cli.store_option import add_store_option, open_store
from hpnb.core import control
from hpnb.core.store.commands import CommandRefused, command_problem


def add_parser(subparsers: Any) -> None:
    """Register ``stop``, ``pause``, ``extend`` and ``parallel``."""
    stop = _command(subparsers, "stop", "stop a running search, or one of its trials (--trial)")
    stop.add_argument("--trial", type=int, metavar="N", help="stop only trial N")
    pause = _command(subparsers, "pause", "pause a trial of a running search: it resumes later from its "
                                          "latest checkpoint (hpnb resume NAME --trial N)")
    pause.add_argument("--trial", type=int, metavar="N", required=True, help="the trial to pause")
    extend = _command(subparsers, "extend", "add trials to a search's budget")
    extend.add_argument("n", type=int, metavar="N", help="how many trials to add")
    parallel = _command(subparsers, "parallel", "change how many trials a search runs at once")
    parallel.add_argument("n", type=int, metavar="N", help="trials at once")


def _command(subparsers: Any, name: str, text: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
    parser.add_argument("name", help="the search")
    add_store_option(parser)
    parser.add_argument("--wait", type=float, default=control.ANSWER_WAIT, metavar="SECONDS",
                        help="how long to wait for the driver's answer (default: %(default)s)")
    parser.set_defaults(func=_RUN[name])
    return parser


def send(args: argparse.Namespace, kind: str, value: int | None = None) -> int:
    """Send ``kind`` to the search's driver and print its answer; 0 when done (or still pending)."""
    with open_store(args) as store:
        answer = control.send_and_wait(store, args.name, kind, value, source="cli", timeout=args.wait)
    print(control.describe_answer(answer))
    return 0


def _stop(args: argparse.Namespace) -> int:
    return send(args, "stop") if args.trial is None else send(args, "stop_trial", args.trial)


def _pause(args: argparse.Namespace) -> int:
    return send(args, "pause_trial", args.trial)


def _extend(args: argparse.Namespace) -> int:
    return _count(args, "extend", "budget")


def _parallel(args: argparse.Namespace) -> int:
    return _count(args, "parallel", "parallel")


def _count(args: argparse.Namespace, kind: str, field: str) -> int:
    """A running search takes the command; a stored one keeps the new number for its next run."""
    problem = command_problem(kind, args.n)
    if problem is not None:
        raise CommandRefused(problem)
    with open_store(args) as store:
        record = store.experiment(args.name)
        if control.not_running_reason(record, time.time()) is None:
            return send(args, kind, args.n)
    from hpnb.core.store import Store

    with Store(args.store) as writable:
        value = record.budget + args.n if kind == "extend" else args.n
        writable.update_experiment(record.id, **{field: value})
    print(f"search {args.name!r} is not running; its {field} is {value} now: "
          f"`hpnb resume {args.name} --detach` runs it")
    return 0


_RUN = {"stop": _stop, "pause": _pause, "extend": _extend, "parallel": _parallel}
