"""``hpnb export NAME --format katib``: a stored search written as a Katib v1beta1 Experiment.

The Experiment carries the search's spec, its budget (as extended), and the
metrics its trials reported besides the objective (``additionalMetricNames``);
its trial template is a placeholder marked ``FILL-IN``. What Katib cannot say
is printed as one list on standard error.

Example:
    >>> from hpnb.cli import main
    >>> main(["export", "mlp-lr", "--format", "katib", "-o", "mlp-lr.katib.yaml"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import numbers
import sys

from hpnb.cli.output_file import check_output_path, print_notes, write_output
from hpnb.cli.store_option import open_store
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.interop.katib_export import export_katib
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.store import ExperimentRecord, Store

#: how many reported results are read to learn the names of the recorded metrics.
METRIC_SAMPLE = 10_000


def run(args: argparse.Namespace) -> int:
    """Write the Experiment (exit 0); unknown name, unreadable spec or unwritable path: exit 2."""
    if args.history:
        raise HpnbError("--history exports reported results; --format katib writes the search itself: "
                        "leave out --history")
    if args.output:
        check_output_path(args.output, force=args.force)
    with open_store(args) as store:
        record = store.experiment(args.name)
        metrics = recorded_metrics(store, record.id)
    result = export_katib(stored_spec(record), name=record.name, budget=record.budget,
                          recorded_metrics=metrics)
    text = result.to_yaml()
    print_notes("hpnb export", result.notes, "what the Katib Experiment does not say")
    if args.output:
        write_output(args.output, text, force=args.force)
        print(f"wrote the Katib Experiment to {args.output}: fill in its trial template (marked FILL-IN)",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def stored_spec(record: ExperimentRecord) -> ExperimentSpec:
    """The spec of a stored search; what its record knows fills what its stored spec leaves out."""
    data = dict(record.spec)
    for key, value in (("metric", record.metric), ("mode", record.mode), ("strategy", record.strategy)):
        data.setdefault(key, value)
    try:
        return parse_spec(data)
    except SpecError as err:
        raise HpnbError(f"the stored spec of {record.name} cannot be read: {err}") from None


def recorded_metrics(store: Store, experiment_id: int) -> list[str]:
    """The names of the numeric metrics in the search's first reported results."""
    names: dict[str, None] = {}
    for row in store.results(experiment_id, limit=METRIC_SAMPLE):
        for name, value in row.metrics.items():
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                names.setdefault(str(name))
    return list(names)
