"""The process of a detached driver: ``HPNB_STORE=STORE python -m hpnb.driving.detached_process --name NAME``.

Started by :func:`hpnb.driving.detached.start_detached` in a session of its own. It says it is alive in the
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

from hpnb.core.store import ExperimentRecord, Store
from hpnb.core.trial import ExperimentState

if TYPE_CHECKING:
    from distributed import Client

    from hpnb.driving.launch import Launch


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hpnb.driving.detached_process",
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
        launch = _start(store, record, args)
    except Exception as exc:  # recorded in the search too, where every view shows it
        print(f"hpnb: the detached driver of {record.name!r} could not start: {exc}", flush=True)
        if store.experiment(args.name).state == ExperimentState.RUNNING.value:
            store.update_experiment(record.id, state=ExperimentState.FAILED,
                                    message=f"the detached driver could not start: {exc}")
        return 1
    state = _ended_state(store, launch)
    print(f"hpnb: search {record.name!r} ended: {state}", flush=True)
    return 1 if state == ExperimentState.FAILED.value else 0


def _start(store: Store, record: ExperimentRecord, args: argparse.Namespace) -> Launch:
    from hpnb.cluster.connect import address_client

    client = None if args.address is None else address_client(args.address)
    return start_driver(store, record, client=client, since=args.since)


def start_driver(store: Store, record: ExperimentRecord, *, client: Client | None,
                 since: float | None) -> Launch:
    """Run the driver of ``record`` in this process, on the objective a detached start kept (its
    cluster started, its driver running, before this returns).

    Raises:
        HpnbError: no objective was kept, or another driver holds the search; whatever the start
            failed with (recorded in the search first).
    """
    from hpnb.core.spec import parse_spec
    from hpnb.driving.kept_objective import kept_objective
    from hpnb.driving.launch import Launch
    from hpnb.driving.placement import driver_id

    launch = Launch(store, record.id, record.name, parse_spec(record.spec), kept_objective(store, record),
                    holder=driver_id(), client=client, commands_since=since)
    launch.start(background=False)
    return launch


def drive_to_end(store: Store, record: ExperimentRecord, *, client: Client | None,
                 since: float | None) -> str:
    """Run the driver of ``record`` here to its end (see :func:`start_driver`); its final state."""
    return _ended_state(store, start_driver(store, record, client=client, since=since))


def _ended_state(store: Store, launch: Launch) -> str:
    """The state the search ended in, once ``launch``'s driver has ended."""
    launch.wait()
    driver = launch.driver
    return driver.public.state if driver is not None else store.experiment(launch.name).state


if __name__ == "__main__":
    from hpnb.driving.process_end import end_headless_process

    end_headless_process(main(sys.argv[1:]))
