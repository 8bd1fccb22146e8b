"""The ``%hpsearch`` line magic: list, show (attach), stop, pause, resume, extend, parallel and export.

Commands to a search (stop, pause, resume a trial, extend, parallel) go through the store to its
driver, wherever it runs (this kernel, another one, a detached process), and print its answer.

Each sub-command is one small function taking the parsed arguments and the
shell; :func:`run_line_command` parses the line and dispatches.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic_arguments import MagicArgumentParser

from hpnb.core.errors import HpnbError
from hpnb.core.trial import ExperimentState
from hpnb.jupyter import live
from hpnb.jupyter.namespace import check_variable_name, variable_name
from hpnb.jupyter.resume import resume_here

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from hpnb.api import Search

EXPORT_FORMATS = ("csv", "json", "parquet")

LINE_HELP = """Manage stored hyperparameter searches.

Usage::

  %hpsearch list [--store PATH]
      a table of every stored experiment (name, strategy, state, trials, best)
  %hpsearch show NAME [--store PATH]      (or: %hpsearch attach NAME)
      the live dashboard of NAME, wherever its driver runs (this kernel, another, a detached one)
  %hpsearch stop NAME [--trial ID] [--store PATH]
      stop NAME (running trials are told to stop at their next hpnb.report), or only trial ID
  %hpsearch pause NAME ID [--store PATH]
      pause trial ID of NAME at its next decision point: its slot is freed, and it resumes
      later from its latest checkpoint
  %hpsearch resume NAME [ID] [--objective FUNC] [-o VAR] [--wait] [--detach] [--store PATH]
      continue NAME; FUNC defaults to the objective named in its stored record
      (with ID: resume paused trial ID of NAME)
  %hpsearch extend NAME N [--objective FUNC] [--store PATH]
      add N trials to NAME's budget (resuming it here if it is not running)
  %hpsearch parallel NAME N [--store PATH]
      run at most N trials of NAME at once
  %hpsearch export NAME [--format csv|json|parquet] [--output PATH] [--store PATH]
      the results table of NAME: returned as a DataFrame, or written to PATH

The store defaults to $HPNB_HOME/hpnb.sqlite (HPNB_HOME defaults to ~/.hpnb).
"""


def _sub(subparsers: Any, name: str, help_text: str) -> MagicArgumentParser:
    parser: MagicArgumentParser = subparsers.add_parser(name, help=help_text)
    parser.add_argument("--store", metavar="PATH", help="store file or directory")
    return parser


def build_line_parser() -> MagicArgumentParser:
    """The parser of ``%hpsearch`` lines (errors are UsageErrors)."""
    parser = MagicArgumentParser(prog="%hpsearch", description=LINE_HELP)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=MagicArgumentParser, required=True
    )
    _sub(subparsers, "list", "list stored experiments")
    for name, text in (("show", "show the dashboard"), ("attach", "show the live dashboard")):
        _sub(subparsers, name, text).add_argument("name")
    stop = _sub(subparsers, "stop", "stop a search or one of its trials")
    stop.add_argument("name")
    stop.add_argument("--trial", type=int)
    parallel = _sub(subparsers, "parallel", "trials at once")
    parallel.add_argument("name")
    parallel.add_argument("n", type=int)
    pause = _sub(subparsers, "pause", "pause a trial")
    pause.add_argument("name")
    pause.add_argument("trial", type=int)
    resume = _sub(subparsers, "resume", "continue a stored search, or a paused trial")
    resume.add_argument("name")
    resume.add_argument("trial", type=int, nargs="?")
    resume.add_argument("--objective", metavar="FUNC")
    resume.add_argument("-o", "--out", metavar="VAR")
    resume.add_argument("--wait", action="store_true")
    resume.add_argument("--detach", nargs="?", const="process", choices=("process", "cluster"))
    extend = _sub(subparsers, "extend", "add trials to a search")
    extend.add_argument("name")
    extend.add_argument("n", type=int)
    extend.add_argument("--objective", metavar="FUNC")
    export = _sub(subparsers, "export", "export the results table")
    export.add_argument("name")
    export.add_argument("--format", choices=EXPORT_FORMATS)
    export.add_argument("--output", metavar="PATH")
    return parser


_PARSER = build_line_parser()


def run_line_command(line: str, shell: InteractiveShell) -> Any:
    """Run one ``%hpsearch`` line; returns what the sub-command returns (shown as the cell's output)."""
    if not line.strip():
        raise UsageError(
            "%hpsearch needs a command: list, show, stop, pause, resume, extend or export "
            "(%hpsearch? for help)"
        )
    args = _PARSER.parse_argstring(line)
    handler = _HANDLERS[args.command]
    try:
        return handler(args, shell)
    except HpnbError as err:
        raise UsageError(str(err)) from None


def handle(name: str, args: argparse.Namespace) -> Search:
    """The live handle of ``name`` when this kernel drives it, else a read-only one from the store."""
    from hpnb.jupyter.show import open_search

    return open_search(name, args.store)


def _list(args: argparse.Namespace, shell: InteractiveShell) -> Any:
    import time

    from hpnb.core.frames import experiments_table
    from hpnb.core.store import Store
    from hpnb.core.summary import store_summaries

    now = time.time()
    with Store(args.store, readonly=True) as store:
        return experiments_table(store_summaries(store, now), now)


def _show(args: argparse.Namespace, shell: InteractiveShell) -> Any:
    from hpnb.jupyter.show import show

    return show(args.name, store=args.store)


def _send(args: argparse.Namespace, kind: str, value: int | None = None) -> None:
    """Send a command to the search's driver, wherever it runs, and print its answer."""
    from hpnb.core.control import describe_answer

    print(describe_answer(handle(args.name, args).command(kind, value, source="magic")))


def _stop(args: argparse.Namespace, shell: InteractiveShell) -> None:
    _send(args, "stop") if args.trial is None else _send(args, "stop_trial", args.trial)


def _pause(args: argparse.Namespace, shell: InteractiveShell) -> None:
    _send(args, "pause_trial", args.trial)


def _parallel(args: argparse.Namespace, shell: InteractiveShell) -> None:
    search = handle(args.name, args)
    if search.is_running:
        _send(args, "parallel", args.n)
        return
    search.set_parallel(args.n)
    print(f"{args.name!r} is not running: it runs {args.n} trials at once when it runs again")


def _resume(args: argparse.Namespace, shell: InteractiveShell) -> None:
    if args.trial is not None:
        _send(args, "resume_trial", args.trial)
        return None
    out = check_variable_name(args.out) if args.out else None
    search = resume_here(args.name, store=args.store, namespace=shell.user_ns, objective=args.objective,
                         detach=args.detach)
    out = out or variable_name(search.name)
    shell.user_ns[out] = search
    live.display_search(search, wait=args.wait, announce=f"{search.name!r} resumed: handle in {out!r}")
    return None


def _extend(args: argparse.Namespace, shell: InteractiveShell) -> None:

    if args.n < 1:
        raise UsageError(f"extend: N must be a positive number of trials (got {args.n})")
    if handle(args.name, args).is_running:  # its driver runs somewhere: it takes the command
        _send(args, "extend", args.n)
        return
    search = live.find(args.name, live.store_path(args.store))
    if search is None or not (search.is_live or args.objective is None):
        search = _resume_for_extend(args, shell)
    search.extend(args.n)
    print(f"{args.name!r}: budget extended by {args.n} trials")


def _resume_for_extend(args: argparse.Namespace, shell: InteractiveShell) -> Search:
    """A handle of a search not running here that can take more trials (its objective resumed)."""
    import hpnb

    stored = hpnb.load(args.name, store=args.store)
    if stored.state == ExperimentState.RUNNING:
        raise UsageError(f"{args.name!r} is driven by another process; extend it there")
    spent = stored.budget_spent
    search = resume_here(args.name, store=args.store, namespace=shell.user_ns, objective=args.objective)
    if spent:
        search.wait()  # nothing left to run: it ends at once, and extend then restarts it
    shell.user_ns[variable_name(search.name)] = search
    return search


def _export(args: argparse.Namespace, shell: InteractiveShell) -> Any:
    import hpnb

    frame = hpnb.load(args.name, store=args.store).results
    if args.output is None:
        return frame
    output = Path(args.output).expanduser()
    fmt = args.format or output.suffix.lstrip(".").lower()
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"export: cannot tell the format of {str(output)!r}; add --format csv|json|parquet")
    if fmt == "csv":
        frame.to_csv(output, index=False)
    elif fmt == "json":
        frame.to_json(output, orient="records", indent=1, date_format="iso")
    else:
        frame.to_parquet(output, index=False)
    print(f"{args.name!r}: {len(frame)} rows written to {output}")
    return None


_HANDLERS = {
    "list": _list,
    "show": _show,
    "attach": _show,
    "parallel": _parallel,
    "stop": _stop,
    "pause": _pause,
    "resume": _resume,
    "extend": _extend,
    "export": _export,
}
