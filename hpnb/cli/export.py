"""``hpnb export NAME``: an experiment's trials (or its full history, or its Pareto front) as CSV,
JSON or Parquet. With several objectives each has a column, and ``pareto_rank`` says which trials
are on the front (0).

CSV and JSON go to standard output unless ``--output`` is given; Parquet is
binary and needs ``--output`` (and pyarrow). JSON is strict: NaN and infinite
values are written as ``null``; times are ISO 8601 in UTC. ``--artifacts DIR`` also copies
each trial's artifacts into ``DIR/trial-<id>/`` and lists them in an ``artifacts`` column
(see :mod:`hpnb.cli.export_artifacts`). ``--mlflow URI`` sends the search to MLflow instead
(see :mod:`hpnb.tracking` and docs/tracking.md).

Example:
    >>> from hpnb.cli import main
    >>> main(["export", "mlp-lr", "--format", "json", "--history"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.cli.export_artifacts import copy_artifacts, with_artifacts
from hpnb.cli.store_option import add_store_option, open_store
from hpnb.core.errors import HpnbError

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("csv", "json", "parquet")
#: writes the search itself (its spec) rather than its trials: see :mod:`hpnb.cli.export_katib`.
KATIB = "katib"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``export`` on the ``hpnb`` command line."""
    parser = subparsers.add_parser(
        "export",
        help="export an experiment's trials or history (csv, json, parquet), or the search as a Katib "
        "Experiment (katib)",
        description="Export one row per trial (or, with --history, every reported result).",
    )
    parser.add_argument("name", help="the experiment's name")
    parser.add_argument(
        "--format",
        choices=(*FORMATS, KATIB),
        help="the file format (default: from the --output suffix, else csv)",
    )
    parser.add_argument("--output", "-o", metavar="PATH", help="write to PATH instead of standard output")
    parser.add_argument(
        "--history", action="store_true", help="export every reported result, not one row per trial"
    )
    parser.add_argument("--front", action="store_true",
                        help="export only the trials on the Pareto front (several objectives; with one: "
                        "the best trial)")
    parser.add_argument("--artifacts", metavar="DIR",
                        help="also copy each trial's artifacts into DIR/trial-ID/ and list them in the "
                        "table's 'artifacts' column")
    parser.add_argument("--mlflow", metavar="URI",
                        help="send the search to the MLflow tracking server or store at URI instead: a "
                        "parent run and a run per trial; runs sent before are continued, nothing twice")
    parser.add_argument("--mlflow-experiment", metavar="NAME",
                        help="with --mlflow: the MLflow experiment (default: the spec's, else the "
                        "search's name)")
    parser.add_argument("--force", action="store_true",
                        help="with --format katib: replace an existing --output file")
    add_store_option(parser)
    parser.set_defaults(func=run)
    return parser


def _to_mlflow(args: argparse.Namespace) -> int:
    """``--mlflow URI``: the search sent to MLflow (see :func:`hpnb.tracking.export_to_mlflow`)."""
    from hpnb.core.spec.tracking import masked
    from hpnb.tracking import export_to_mlflow

    with open_store(args) as store:
        reports = export_to_mlflow(store, args.name, args.mlflow, args.mlflow_experiment)
    print(f"sent {args.name!r} ({reports} reports) to MLflow at {masked(args.mlflow)}", file=sys.stderr)
    return 0


def choose_format(requested: str | None, output: str | None) -> str:
    """The format asked for, else the one the output file's suffix names, else csv."""
    if requested:
        return requested
    suffix = Path(output).suffix.lstrip(".").lower() if output else ""
    return suffix if suffix in FORMATS else "csv"


def run(args: argparse.Namespace) -> int:
    """Write the export (exit 0); unknown name, missing pyarrow or an unwritable path: exit 2."""
    if args.mlflow:
        return _to_mlflow(args)
    if args.format == KATIB:
        if args.artifacts:
            raise HpnbError("--artifacts copies the trials' files; --format katib writes the search "
                            "itself: use csv, json or parquet with --artifacts")
        from hpnb.cli.export_katib import run as run_katib

        return run_katib(args)
    from hpnb.core.frames import history_frame, pareto_frame, results_frame  # pandas: imported when run

    kind = choose_format(args.format, args.output)
    if kind == "parquet":
        _require_pyarrow()
        if not args.output:
            raise HpnbError("parquet is a binary format: give the file to write with --output PATH")
    with open_store(args) as store:
        experiment = store.experiment(args.name)
        if args.history:
            frame = history_frame(store.results(experiment.id))
        elif args.front:
            frame = pareto_frame(experiment, store.trials(experiment.id))
        else:
            frame = results_frame(experiment, store.trials(experiment.id))
        if args.artifacts:
            copied = copy_artifacts(store.path, experiment, frame["trial_id"], Path(args.artifacts))
            frame = with_artifacts(frame, copied)
    if args.output:
        _write_file(frame, kind, Path(args.output))
        print(f"wrote {len(frame)} rows to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(render_text(frame, kind))
    return 0


def render_text(frame: pd.DataFrame, kind: str) -> str:
    """The frame as CSV or JSON (a list of records) text."""
    if kind == "json":
        return frame.to_json(orient="records", date_format="iso") + "\n"
    return frame.to_csv(index=False)


def _require_pyarrow() -> None:
    try:
        importlib.import_module("pyarrow")
    except ImportError as err:
        raise HpnbError(
            "parquet export needs pyarrow, which is not installed: pip install pyarrow "
            "(or use --format csv or --format json)"
        ) from err


def _write_file(frame: pd.DataFrame, kind: str, path: Path) -> None:
    try:
        if kind == "parquet":
            frame.to_parquet(path, index=False)
        else:
            path.write_text(render_text(frame, kind), encoding="utf-8")
    except OSError as err:
        raise HpnbError(f"cannot write {path}: {err.strerror or err}") from err
    except (ValueError, TypeError) as err:  # pyarrow refuses columns of mixed types
        raise HpnbError(f"cannot write {path} as {kind}: {err}; try --format csv or json") from err
