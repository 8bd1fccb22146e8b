"""``hpnb check SPEC.yaml``: validate a spec file and print the plan, starting nothing.

Exit status 0 when the spec is valid, 2 when it is not (the error is printed
without a traceback) or the file cannot be read.

Example:
    >>> from hpnb.cli import main
    >>> main(["check", "examples/mlp.yaml"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any, TextIO

from hpnb.core.errors import HpnbError
from hpnb.core.frozen import thaw
from hpnb.core.objectives import goal
from hpnb.core.ordinal_parameter import is_number
from hpnb.core.space import DEFAULT_GRID_CAP, CategoricalParameter, Parameter, SearchSpace
from hpnb.core.spec import ExperimentSpec, describe_duration, parse_spec
from hpnb.core.spec.file import read_spec_file
from hpnb.core.warm_start import describe_warm_start


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``check`` on the ``hpnb`` command line."""
    parser = subparsers.add_parser("check", help="validate a search spec and print its plan",
                                   description="Validate a search spec (YAML) and print what it would run.")
    parser.add_argument("spec", metavar="SPEC.yaml", help="the spec file ('-' reads standard input)")
    parser.add_argument("--cluster", action="store_true",
                        help="also print the cluster the spec asks for (the Kubernetes manifest when "
                             "cluster: kubernetes)")
    parser.add_argument("--trials", type=int, help="override trials")
    parser.add_argument("--parallel", type=int, help="override parallel")
    parser.add_argument("--strategy", help="override the strategy name")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Validate ``args.spec``; print the plan (exit 0) or the error (exit 2)."""
    try:
        text = read_spec_file(args.spec)
    except HpnbError as err:
        print(f"hpnb check: {err}", file=sys.stderr)
        return 2
    overrides = {"trials": args.trials, "parallel": args.parallel, "strategy": args.strategy}
    try:
        spec = with_section_checked(parse_spec(text, overrides=overrides), text)
    except HpnbError as err:
        print(f"hpnb check: {args.spec}: {err}", file=sys.stderr)
        return 2
    print_plan(spec, sys.stdout)
    if args.cluster:
        try:
            print_cluster(spec, sys.stdout)
        except HpnbError as err:
            print(f"hpnb check: {args.spec}: {err}", file=sys.stderr)
            return 2
    return 0


def with_section_checked(spec: ExperimentSpec, text: str) -> ExperimentSpec:
    """A spec with an ``llm:`` or ``nas:`` section checked by its room, as a start checks it, and
    with the parameters the section declares (the plan lists them); others as they are."""
    if spec.section is None:
        return spec
    from hpnb.builtin_objective import prepared

    given = _data_function_stand_in if spec.section.kind == "nas" else None
    checked, _ = prepared(spec, given, text)
    return checked


def _data_function_stand_in() -> None:
    """What ``hpnb check`` gives a ``nas:`` section for the data function it names at the start."""
    raise RuntimeError("hpnb check runs no trial")


def _grid_size(space: SearchSpace) -> int | None:
    if any(p.grid_size() is None for p in space):
        return None
    try:
        return space.grid_size(DEFAULT_GRID_CAP)
    except HpnbError:  # a conditional space of more branches than a grid may have: no grid to show
        return None


def _mixes_numbers_and_labels(parameter: Parameter) -> bool:
    """Whether ``parameter`` is a list holding numbers and other values (read as categorical)."""
    if not isinstance(parameter, CategoricalParameter):
        return False
    numbers = [is_number(value) for value in parameter.choices]
    return any(numbers) and not all(numbers)


def _duration(seconds: float | None) -> str:
    return "no limit" if seconds is None else describe_duration(seconds)


def print_plan(spec: ExperimentSpec, out: TextIO) -> None:
    """Write a human summary of ``spec``: parameters, strategy, budget, stopping, resources."""
    out.write(f"spec is valid{f': {spec.name}' if spec.name else ''}\n")
    if spec.is_multi_objective:
        out.write(f"metrics:        {goal(spec.objectives)}\n")
    else:
        out.write(f"metric:         {spec.metric} ({'minimise' if spec.mode == 'min' else 'maximise'})\n")
    out.write(f"strategy:       {spec.strategy.describe()}\n")
    seed = "none (a fresh seed is recorded)" if spec.seed is None else str(spec.seed)
    out.write(f"trials:         {spec.trials}\n")
    parallel = "one per worker slot of the cluster" if spec.parallel is None else str(spec.parallel)
    out.write(f"parallel:       {parallel}\n")
    out.write(f"seed:           {seed}\n")
    grid = _grid_size(spec.space)
    if grid is not None and spec.space.dimension > 0:
        out.write(f"grid size:      {grid:,} configuration(s)\n")
    out.write(f"parameters:     {len(spec.space)} ({spec.space.dimension} varying)\n")
    width = max((len(p.name) for p in spec.space), default=0)
    for parameter in spec.space:
        condition = spec.space.condition(parameter.name)
        when = "" if condition is None else f"  ({condition.describe()})"
        out.write(f"  {parameter.name:<{width}}  {parameter.describe()}{when}\n")
        if _mixes_numbers_and_labels(parameter):
            out.write(f"  {'':<{width}}  (numbers and labels mixed: categorical, without an order; "
                      "a list of numbers only is ordered)\n")
    if spec.constraints:
        out.write(f"constraints:    {_constraints(spec)}\n")
    out.write(f"early stopping: {spec.early_stopping.describe()}\n")
    start = describe_warm_start(spec)
    if start:
        out.write(f"warm start:     {start}\n")
    out.write(f"timeouts:       search {_duration(spec.timeout)}, "
              f"each trial {_duration(spec.trial_timeout)}\n")
    out.write(f"failures:       stop after {spec.max_failures} failed trial(s); "
              f"{spec.retries} retr{'y' if spec.retries == 1 else 'ies'} per trial\n")
    out.write(f"resources:      {spec.resources.describe()}\n")


def _constraints(spec: ExperimentSpec) -> str:
    """The bounds, and whether the strategy learns them or only the ranking applies them."""
    from hpnb.core.strategies import strategy_class

    bounds = ", ".join(c.describe() for c in spec.constraints)
    name = spec.strategy.name
    if strategy_class(name).learns_from_constraints:
        return f"{bounds} ({name} learns them; infeasible trials are never best)"
    return (f"{bounds} ({name} ignores them when choosing trials: tpe, gp, nsga2, evolution or auto "
            "learn them; infeasible trials are never best)")


def print_cluster(spec: ExperimentSpec, out: TextIO) -> None:
    """Write the cluster the spec asks for; the pod manifest when it is a Kubernetes one."""
    resources = spec.resources
    out.write(f"cluster:        {resources.cluster}\n")
    if resources.kubernetes:
        for key, value in resources.kubernetes.items():
            out.write(f"  {key}: {json.dumps(thaw(value))}\n")
    if resources.cluster != "kubernetes":
        return
    try:
        manifests = importlib.import_module("hpnb.cluster.kubernetes_manifest")
    except ImportError:
        out.write("(the Kubernetes manifest is not available in this installation)\n")
        return
    cluster_name = manifests.cluster_name_for(spec.name or "search")
    out.write(f"manifest of DaskCluster {cluster_name!r}:\n")
    out.write(manifests.manifest_yaml(resources, cluster_name))
