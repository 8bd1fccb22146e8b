"""The ``%%hpsearch`` cell magic and ``%hpsearch`` line magic.

The magic methods only parse their arguments; the work is done by
:func:`run_search_cell` and :mod:`hpnb.jupyter.magic_line`, which take a
parsed command and the shell, so they read like plain functions.

Example (in a notebook)::

    %load_ext hpnb

    %%hpsearch train --name mlp-lr --trials 20
    metric: val_loss
    mode: min
    parameters:
      lr: {distribution: logUniform, min: 1.0e-5, max: 1.0e-1}
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from hpnb.core.errors import HpnbError, SpecError
from hpnb.jupyter import live, warmup
from hpnb.jupyter.magic_line import LINE_HELP, run_line_command
from hpnb.jupyter.namespace import cell_source, check_variable_name, resolve_objective, variable_name

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from hpnb.api import Search
    from hpnb.core.spec import ExperimentSpec

_EMPTY_BODY = (
    "the cell body is empty: write the search spec (YAML) below the %%hpsearch line, e.g.\n"
    "%%hpsearch train\nmetric: val_loss\nparameters:\n  lr: {distribution: logUniform, min: 1.0e-5, max: 0.1}"
)


@magics_class
class HpsearchMagics(Magics):
    """The magics ``%load_ext hpnb`` registers."""

    @magic_arguments()
    @argument("objective", nargs="?",
              help="the function to tune: a name defined in the notebook (or module.function); none "
                   "for a spec whose llm: section declares the objective")
    @argument("--name", help="the experiment's name in the store (default: the spec's name, else the "
                             "objective's)")
    @argument("-o", "--out", metavar="VAR",
              help="variable that receives the Search handle (default: the name, as an identifier)")
    @argument("--trials", type=int, help="total number of trials (overrides the body's trials)")
    @argument("--parallel", type=int, help="trials at once (overrides the body's parallel)")
    @argument("--strategy", help="search strategy (overrides the body's strategy)")
    @argument("--timeout", metavar="DURATION",
              help="time limit of the whole search, e.g. 90s, 30m, 2h (overrides the body's timeout)")
    @argument("--dry-run", action="store_true",
              help="validate, print the plan and the cluster that would be used; run nothing")
    @argument("--wait", action="store_true", help="block until the search ends (scripts, tested notebooks)")
    @argument("--store", metavar="PATH", help="store file or directory (default: $HPNB_HOME, ~/.hpnb)")
    @argument("--resume", action="store_true", help="continue the stored experiment of this name")
    @argument("--overwrite", action="store_true", help="replace the stored experiment of this name")
    @argument("--detach", nargs="?", const="process", default=None, choices=("process", "cluster"),
              help="run the driver where it outlives this kernel: a process of its own (the default), or "
                   "a task on a worker of the search's cluster (default: the spec's detach:, else the "
                   "HPNB_DETACH setting, else in this kernel)")
    @argument("--no-detach", dest="detach", action="store_const", const=False,
              help="run the driver in this kernel whatever the spec or HPNB_DETACH say")
    @cell_magic("hpsearch")  # type: ignore[arg-type]
    def hpsearch_cell(self, line: str, cell: str) -> None:
        """Run a hyperparameter search of OBJECTIVE; the cell body is the spec (YAML).

        The cell returns at once and shows a live dashboard; the search runs in
        the background (the kernel's local cluster too, while it starts). Every mistake
        in the cell is reported before anything starts. Run again with the same spec,
        the cell shows the stored search again; with another spec, it names the changes.
        """
        args = parse_argstring(self.hpsearch_cell, line)
        with warmup.cell():
            run_search_cell(args, cell, self._require_shell(), source=cell_source(line, cell))

    @line_magic("hpsearch")  # type: ignore[arg-type]
    def hpsearch_line(self, line: str) -> Any:
        with warmup.cell():
            return run_line_command(line, self._require_shell())

    hpsearch_line.__doc__ = LINE_HELP  # type: ignore[assignment]

    def _require_shell(self) -> InteractiveShell:
        if self.shell is None:
            raise UsageError("the hpnb magics need a running IPython shell")
        return self.shell


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    fields = {"name": args.name, "trials": args.trials, "parallel": args.parallel, "strategy": args.strategy,
              "timeout": args.timeout}
    return {key: value for key, value in fields.items() if value is not None}


def parse_cell_spec(body: str, overrides: Mapping[str, Any]) -> ExperimentSpec:
    """The validated spec of a cell body, or a UsageError carrying the spec's message."""
    from hpnb.core.spec import parse_spec

    if not body.strip():
        raise UsageError(_EMPTY_BODY)
    try:
        return parse_spec(body, overrides=dict(overrides) or None)
    except SpecError as err:
        raise UsageError(str(err)) from None


def run_search_cell(args: argparse.Namespace, body: str, shell: InteractiveShell,
                    source: str | None = None) -> None:
    """Validate a ``%%hpsearch`` cell, start its search and display its dashboard (within
    :func:`warmup.cell`, which the magic enters)."""
    if args.resume and args.overwrite:
        raise UsageError("--resume and --overwrite exclude each other: choose one")
    if args.out is not None:
        check_variable_name(args.out)
    namespace = shell.user_ns
    objective = None if args.objective is None else resolve_objective(args.objective, namespace)
    spec = parse_cell_spec(body, _overrides(args))
    if args.objective is None:
        if spec.section is None:
            raise UsageError("name the function to tune after %%hpsearch, e.g. %%hpsearch train (or "
                             "declare a built-in objective in the spec: an llm: section)")
        args.objective = f"built in ({spec.section.kind}:)"
    if args.dry_run:
        from hpnb.jupyter.plan import format_plan

        print(format_plan(spec, objective_name=args.objective, name=args.name, namespace=namespace))
        return
    from hpnb.driving.launch import starts_held

    with starts_held():  # the dashboard is drawn before the cluster starts
        search = start_search(objective, spec, args, namespace, source, body=body)
        if search is None:  # the name is taken: the same search again, or a message naming the changes
            return
        out = args.out or variable_name(search.name)
        namespace[out] = search
        dashboard = live.display_search(search, announce=f"{search.name!r}: handle in {out!r}")
    if args.wait:
        live.wait_for_end(dashboard)


def start_search(objective: Callable[..., Any] | None, spec: ExperimentSpec, args: argparse.Namespace,
                 namespace: MutableMapping[str, Any], source: str | None = None,
                 body: str | None = None) -> Search | None:
    """``hpnb.search`` for a cell, returning while the cluster starts; store errors become
    UsageErrors that say what to do (a spec field checked against the store, such as
    ``warm_start``, with its line in the cell's ``body``). None when the name was taken by the
    same search, which is then shown again (:mod:`hpnb.jupyter.rerun`)."""
    import hpnb
    from hpnb.core.store.store_errors import NameTaken
    from hpnb.jupyter.rerun import rerun_cell

    try:
        search = hpnb.search(
            objective, spec, name=args.name or spec.name, store=args.store, overwrite=args.overwrite,
            resume=args.resume, namespace=namespace, source=source, wait_for_cluster=False,
            detach=args.detach,
        )
    except NameTaken as err:
        rerun_cell(err.name, spec, args.objective, store=args.store, namespace=namespace, out=args.out,
                   wait=args.wait)
        return None
    except SpecError as err:
        from hpnb.core.spec.yaml_lines import line_of

        raise UsageError(str(err.with_line(line_of(body, err.path)))) from None
    except HpnbError as err:
        raise UsageError(str(err)) from None
    live.register(search)
    return search
