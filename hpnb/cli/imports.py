"""``hpnb import katib EXPERIMENT.yaml``: a Katib v1beta1 Experiment as an hpnb spec.

The spec is printed (or written with ``-o SPEC.yaml``; an existing file is
replaced only with ``--force``); everything of the Experiment that does not
carry over exactly is printed as one list on standard error. A file that is not
a Katib Experiment, or a field that cannot be read, is one error naming the
field, the value, what is allowed and the line, with exit status 2 and nothing
written.

Example:
    >>> from hpnb.cli import main
    >>> main(["import", "katib", "random.yaml", "-o", "spec.yaml"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hpnb.cli.output_file import check_output_path, print_notes, write_output
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec.file import read_spec_file


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``import`` (with its format, ``katib``) on the ``hpnb`` command line."""
    parser = subparsers.add_parser("import", help="turn another tool's search into a spec (katib)",
                                   description="Turn another tool's search definition into an hpnb spec.")
    formats = parser.add_subparsers(dest="format", metavar="FORMAT", required=True)
    katib = formats.add_parser("katib", help="a Katib v1beta1 Experiment (YAML)",
                               description="Turn a Katib v1beta1 Experiment into an hpnb spec; what does not "
                                           "carry over is listed on standard error.")
    katib.add_argument("experiment", metavar="EXPERIMENT.yaml",
                       help="the Katib Experiment file ('-' reads standard input)")
    katib.add_argument("-o", "--output", metavar="SPEC.yaml",
                       help="write the spec there instead of printing it")
    katib.add_argument("--force", action="store_true", help="replace an existing --output file")
    katib.set_defaults(func=run_katib)
    return parser


def run_katib(args: argparse.Namespace) -> int:
    """Convert ``args.experiment``; exit 0, or 2 (with nothing written) for bad input."""
    if args.output:
        check_output_path(args.output, force=args.force)
    text = read_spec_file(args.experiment)
    try:
        result = import_katib(text)
    except SpecError as err:
        raise HpnbError(f"{args.experiment}: {err}") from None
    spec_text = result.to_yaml()
    print_notes("hpnb import katib", result.notes, "not carried over exactly")
    if args.output:
        write_output(args.output, spec_text, force=args.force)
        print(f"wrote the spec to {args.output} (check it with: hpnb check {args.output})", file=sys.stderr)
    else:
        sys.stdout.write(spec_text)
    return 0
