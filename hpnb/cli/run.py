"""``hpnb run`` and ``hpnb resume``: a headless driver for terminals and CI jobs.

Example:
    >>> from hpnb.cli import main
    >>> main(["run", "examples/mlp.yaml", "--objective", "mypkg.train:train"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hpnb.core.errors import HpnbError
from hpnb.core.trial import ExperimentState


def add_parser(subparsers: Any) -> None:
    """Register ``run`` and ``resume``."""
    run = subparsers.add_parser("run", help="run a search from a spec file, without Jupyter",
                                description="Run a search headless: a progress line, then the leaderboard.")
    run.add_argument("spec", metavar="SPEC.yaml", help="the spec file")
    _common(run)
    run.add_argument("--name", help="the search's name (default: the spec's name or the objective's)")
    run.add_argument("--overwrite", action="store_true", help="replace a stored search of the same name")
    run.add_argument("--trials", type=int, help="override trials")
    run.add_argument("--parallel", type=int, help="override parallel")
    run.add_argument("--timeout", metavar="DURATION", help="time limit of the search, e.g. 90s, 30m, 2h")
    run.add_argument("--trial-timeout", metavar="DURATION", help="time limit of each trial, e.g. 5m")
    run.set_defaults(func=run_command)
    resume = subparsers.add_parser("resume", help="continue a stored search, or resume a paused trial",
                                   description="Continue a stored search: finished trials stay, "
                                               "interrupted ones run again. With --trial N, resume a "
                                               "paused trial of a running search.")
    resume.add_argument("name", help="the stored search")
    _common(resume, objective_required=False)
    resume.add_argument("--extend", type=int, default=0, metavar="N", help="add N trials to the budget")
    resume.add_argument("--trial", type=int, metavar="N", help="resume paused trial N of a running search")
    resume.set_defaults(func=resume_command)


def _common(parser: argparse.ArgumentParser, objective_required: bool = True) -> None:
    parser.add_argument("--objective", required=objective_required, metavar="MODULE:FUNCTION",
                        help="the objective, e.g. train:train or path/to/train.py:train"
                             + ("" if objective_required else " (with --detach, default: the kept one)"))
    parser.add_argument("--store", help="the store: a file or postgresql://user@host:5432/db "
                                        "(default: $HPNB_STORE, else $HPNB_HOME/hpnb.sqlite)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--detach", nargs="?", const="process", choices=("process", "cluster"),
                        help="run the driver where it outlives this command: a process of its own "
                             "(the default), or a task on a worker of the search's cluster; print "
                             "where it runs and return at once")


def load_objective(reference: str) -> Callable[..., Any]:
    """The function named by ``module:function`` or ``path/to/file.py:function``.

    Raises:
        HpnbError: when the module or the function cannot be found.
    """
    module_name, sep, attr = reference.rpartition(":")
    if not sep or not module_name or not attr:
        raise HpnbError(f"--objective: expected MODULE:FUNCTION, got {reference!r}")
    if module_name.endswith(".py"):
        module = _module_from_file(Path(module_name))
    else:
        sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise HpnbError(f"--objective: cannot import module {module_name!r}: {exc}") from exc
    objective = getattr(module, attr, None)
    if objective is None or not callable(objective):
        raise HpnbError(f"--objective: module {module_name!r} has no function {attr!r}")
    return objective


def _module_from_file(path: Path) -> Any:
    import cloudpickle

    if not path.is_file():
        raise HpnbError(f"--objective: no such file: {path}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise HpnbError(f"--objective: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    # workers cannot import a file by path: ship its functions by value
    cloudpickle.register_pickle_by_value(module)
    return module


def follow(search: Any, quiet: bool = False) -> int:
    """Print progress until ``search`` ends, then the leaderboard, and end the process: 0 unless it
    FAILED.

    Ctrl-C or SIGTERM stops the search cleanly (exit 130 or 143); see :mod:`hpnb.cli.interrupts`.
    """
    from hpnb.cli.interrupts import sigterm_as_interrupt, stop_after_interrupt
    from hpnb.cli.progress import ProgressPrinter
    from hpnb.cli.show import failure_lines, leaderboard_lines

    printer = None if quiet else ProgressPrinter()
    interrupted: int | None = None
    with sigterm_as_interrupt():
        try:
            while search.is_live:
                search.wait(0.25)
                if printer is not None and printer.due():
                    printer.update(search.summary)
        except KeyboardInterrupt as interrupt:
            interrupted = stop_after_interrupt(search, interrupt)
    if printer is not None:
        printer.update(search.summary, final=True)
    print(f"search {search.name!r}: {search.state}" + (f" ({search.message})" if search.message else ""))
    record, trials = search.record, search.store.trials(search.experiment_id)
    for line in leaderboard_lines(record, trials) + failure_lines(trials):
        print(line)
    code = interrupted if interrupted is not None else (1 if search.state == ExperimentState.FAILED else 0)
    from hpnb.driving.process_end import end_headless_process

    end_headless_process(code)  # the process ends here


def run_command(args: argparse.Namespace) -> int:
    from hpnb.api import search
    from hpnb.core.spec.file import read_spec_file

    text = read_spec_file(args.spec)
    given = {"trials": args.trials, "parallel": args.parallel, "timeout": args.timeout,
             "trial_timeout": args.trial_timeout}
    overrides = {key: value for key, value in given.items() if value is not None}
    objective = load_objective(args.objective)
    handle = search(objective, text, name=args.name, store=args.store, overwrite=args.overwrite,
                    detach=args.detach, **overrides)
    return _detached(handle) if handle.detached is not None else follow(handle, args.quiet)


def resume_command(args: argparse.Namespace) -> int:
    from hpnb.api import resume

    if args.trial is not None:
        from hpnb.cli.control import send
        from hpnb.core.control import ANSWER_WAIT

        args.wait = ANSWER_WAIT
        return send(args, "resume_trial", args.trial)
    if args.objective is None and not args.detach:
        raise HpnbError("resume: give --objective MODULE:FUNCTION, or --detach to run the objective "
                        "its detached start kept")
    objective = None if args.objective is None else load_objective(args.objective)
    if args.extend:
        _raise_budget(args.store, args.name, args.extend)
    handle = resume(args.name, objective, store=args.store, detach=args.detach)
    return _detached(handle) if handle.detached is not None else follow(handle, args.quiet)


def _raise_budget(store: str | None, name: str, extra: int) -> None:
    from hpnb.core.store import Store
    from hpnb.core.store.commands import CommandRefused, command_problem

    problem = command_problem("extend", extra)
    if problem is not None:
        raise CommandRefused(problem)
    with Store(store) as opened:
        record = opened.experiment(name)
        opened.update_experiment(record.id, budget=record.budget + extra)


def _detached(search: Any) -> int:
    """Say where a detached driver runs and logs; the search goes on after this command ends."""
    started = search.detached
    log = f"; its log: {started.log}" if started.log is not None else ""
    print(f"search {search.name!r} runs in a detached driver ({started.where}){log}\n"
          f"follow it with `hpnb show {search.name}`, stop it with `hpnb stop {search.name}`")
    return 0
