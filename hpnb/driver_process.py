"""The process of a detached driver: ``HPNB_STORE=STORE python -m hpnb.driver_process --name NAME``.

Started by :func:`hpnb.detach.start_detached` in a session of its own. It says it is alive in the
store at once, loads the objective the kernel kept, runs the search's driver to its end (with its
own local cluster when the spec says ``cluster: local``) and exits. Everything it prints goes to
its log file; everything it does is in the store.

Example:
    >>> main(["--name", "mlp-lr"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hpnb.core.store import Store
from hpnb.core.trial import ExperimentState

if TYPE_CHECKING:
    from hpnb.handle import Search


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hpnb.driver_process",
                                     description="Run one search's driver to its end (a detached driver).")
    parser.add_argument("--store", default=None,
                        help="the store (default: HPNB_STORE, where a server's URL with its password is kept "
                             "off the command line)")
    parser.add_argument("--name", required=True, help="the search")
    parser.add_argument("--since", type=float, default=None,
                        help="commands sent from then on (epoch seconds) are for this driver")
    parser.add_argument("--address", default=None, help="a running Dask scheduler to run the trials on")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Drive the search to its end; 0 unless it could not start or FAILED."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    store = Store(args.store)
    record = store.experiment(args.name)
    store.update_experiment(record.id, heartbeat=time.time())  # alive before the heavier imports
    print(f"hpnb: detached driver of {record.name!r} started", flush=True)
    try:
        search = _start(store, args)
    except Exception as exc:  # recorded in the search too, where every view shows it
        print(f"hpnb: the detached driver of {record.name!r} could not start: {exc}", flush=True)
        if store.experiment(args.name).state == ExperimentState.RUNNING.value:
            store.update_experiment(record.id, state=ExperimentState.FAILED,
                                    message=f"the detached driver could not start: {exc}")
        return 1
    search.wait()
    print(f"hpnb: search {record.name!r} ended: {search.state}", flush=True)
    return 1 if search.state == ExperimentState.FAILED.value else 0


def _start(store: Store, args: argparse.Namespace) -> Search:
    from hpnb.cluster.connect import address_client
    from hpnb.core.spec import parse_spec
    from hpnb.handle import Search
    from hpnb.kept_objective import kept_objective

    record = store.experiment(args.name)
    objective = kept_objective(store, record)
    client = None if args.address is None else address_client(args.address)
    search = Search(store, record, parse_spec(record.spec), objective=objective, client=client)
    search._start(background=False, commands_since=args.since)
    return search


def drive_on_worker(store: str, name: str, since: float, scheduler: str) -> str:
    """A search's driver as a task on a Dask worker (``detach: cluster``): it leaves the worker's
    pool of trial threads, runs the search to its end on the same cluster and returns its state.
    Run again on another worker after a worker's death, it resumes the search from the store."""
    from distributed import secede

    from hpnb.cluster.connect import address_client
    from hpnb.core.spec import parse_spec
    from hpnb.handle import Search
    from hpnb.kept_objective import kept_objective

    secede()  # a driver is not a trial: it takes no slot
    opened = Store(store)
    record = opened.experiment(name)
    if record.state != ExperimentState.RUNNING.value:
        return record.state  # it ended, or was stopped, while this task waited to run again
    search = Search(opened, record, parse_spec(record.spec), objective=kept_objective(opened, record),
                    client=address_client(scheduler))
    search._start(background=False, commands_since=since)
    return search.wait().state


def _exit(code: int) -> None:
    """End the process once the search's local cluster is closed (its workers end with it)."""
    from hpnb.cli.interrupts import close_local_clusters, exit_now

    close_local_clusters(code)
    exit_now(code)


if __name__ == "__main__":
    _exit(main(sys.argv[1:]))
