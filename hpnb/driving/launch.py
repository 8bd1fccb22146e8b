"""Starting a search's driver: connect to its cluster, rebuild what the store holds, run the loop.

Getting a client can take seconds (a local cluster starting) or minutes (Kubernetes). A
:class:`Launch` does it either in the caller's thread or in a background one, so that a
notebook cell returns at once. From the moment it begins the search is recorded as RUNNING,
with a heartbeat and a message naming what it waits for ("starting the local cluster (2
workers)"), so every front end shows it; commands given meanwhile (stop, extend, parallel)
reach the driver once it runs. A start that fails is recorded: the search is FAILED and its
message says why. Within :func:`starts_held`, background starts wait for the block to end, so
a cell draws its dashboard before the cluster's start competes with it for the interpreter.

Example:
    >>> launch = Launch(store, record.id, "demo", spec, train, holder="host:1")  # doctest: +SKIP
    >>> launch.start(background=True)  # doctest: +SKIP
    >>> launch.wait()  # doctest: +SKIP
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hpnb.cluster.connect import Connection, connect, starting_message
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.spec import ExperimentSpec
from hpnb.core.store import CLEAR, Store
from hpnb.core.store.commands import DONE
from hpnb.core.strategies.base import Strategy
from hpnb.core.summary import HEARTBEAT_INTERVAL
from hpnb.core.trial import ExperimentState
from hpnb.core.warm_start import warm_start_trials
from hpnb.driving.driver_parts import adaptive_parallel, make_stopping_rule, make_strategy
from hpnb.runner.checkpoint_store import (
    CheckpointLocation,
    CheckpointStore,
    CheckpointStoreError,
    search_location,
)
from hpnb.runner.lease import Lease, take_driver_lease
from hpnb.tracking.background import Tracking

if TYPE_CHECKING:
    from distributed import Client

    from hpnb.runner.driver import Driver

_held = threading.local()


@contextlib.contextmanager
def starts_held() -> Iterator[None]:
    """Background starts begun in this block, on this thread, begin when it ends (waiting for
    such a search inside the block would wait for ever)."""
    if getattr(_held, "threads", None) is not None:
        yield
        return
    _held.threads = []
    try:
        yield
    finally:
        threads, _held.threads = _held.threads, None
        for thread in threads:
            thread.start()


class Launch:
    """One run of a search's driver, from the start of its cluster to its end.

    Args:
        store, experiment_id, name, spec: the search.
        objective: the function its trials run.
        holder: ``host:pid`` of this process, recorded as the search's driver.
        client: a Dask client to use instead of ``spec.resources.cluster``.
        namespace: where ``resources.cluster: NAME`` is looked up.
        on_change: called after each change the driver stores, and when the start ends.
        commands_since: commands sent from this moment on (epoch seconds; default: now) are for
            this driver, older pending ones were sent to a driver that is gone and are refused.
    """

    def __init__(self, store: Store, experiment_id: int, name: str, spec: ExperimentSpec,
                 objective: Callable[..., Any], *, holder: str, client: Client | None = None,
                 namespace: Mapping[str, Any] | None = None,
                 on_change: Callable[[], None] = lambda: None, commands_since: float | None = None) -> None:
        self.store, self.experiment_id, self.name, self.spec = store, experiment_id, name, spec
        self.objective, self.holder, self.client, self.namespace = objective, holder, client, namespace
        self.on_change = on_change
        #: the running driver, once the cluster is up
        self.driver: Driver | None = None
        #: set once the driver runs, or the start failed or was stopped
        self.settled = threading.Event()
        self.commands_since = time.time() if commands_since is None else commands_since
        self._lock = threading.Lock()
        self._close_cluster: Callable[[], None] | None = None
        #: set once an ended driver's cluster was closed or let go of (see :meth:`_ended`)
        self._closed = threading.Event()
        #: MLflow and TensorBoard, fed from the store while the driver runs (hpnb.tracking)
        self.tracking = Tracking([])

    # -- what the handle asks -----------------------------------------------------------
    @property
    def is_live(self) -> bool:
        """Starting, or its driver running."""
        driver = self.driver
        return not self.settled.is_set() if driver is None else not driver.ended.is_set()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the driver ended (or the start failed), or ``timeout`` seconds passed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self.settled.wait(timeout)
        driver = self.driver
        if driver is not None:
            driver.ended.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
            # a cluster closed by the caller right after must find hpnb done with it
            self._closed.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
            self.tracking.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))

    def wake(self) -> None:
        """Tell the driver that commands wait in the store (it also finds them by itself)."""
        driver = self.driver
        if driver is not None:
            driver.wake()

    # -- starting -----------------------------------------------------------------------
    def start(self, background: bool = False) -> None:
        """Take the search (one driver at a time), record it as starting, then connect and run
        the driver: in a background thread with ``background``, else here.

        Raises:
            HpnbError: another driver holds the search. Without ``background``, whatever the
                start failed with (recorded in the search first).
        """
        lease = take_driver_lease(self.store, self.experiment_id, self.holder, self.name)
        waiting_for = starting_message(self.spec.resources, self.name, self.client)
        try:
            self.store.clear_stop(self.experiment_id)
            self.store.refuse_pending(self.experiment_id, f"search {self.name!r} was not running when it "
                                      "was sent; it was not carried out", before=self.commands_since)
            self.store.update_experiment(self.experiment_id, state=ExperimentState.RUNNING,
                                         message=waiting_for or CLEAR, driver=self.holder,
                                         heartbeat=time.time())
        except BaseException:
            lease.release()
            raise
        if background:
            thread = threading.Thread(target=self._run, args=(lease, waiting_for, False), daemon=True,
                                      name=f"hpnb-start-{self.name}")
            held = getattr(_held, "threads", None)
            if held is None:
                thread.start()
            else:
                held.append(thread)
        else:
            self._run(lease, waiting_for, True)

    def _run(self, lease: Lease, waiting_for: str | None, raise_errors: bool) -> None:
        try:
            location = self._checkpoint_location()
            connection = self._connect()
            self._close_cluster = connection.close
            if self._stopped_before_start(lease):
                return
            self._check_workers_reach(connection, location)
            driver = self._driver_on(connection, lease, location)
        except BaseException as exc:
            self._fail(exc, waiting_for, lease)
            if raise_errors:
                raise
            return
        from hpnb.tracking import start_tracking

        self.tracking = start_tracking(self.store, self.experiment_id, self.name, self.spec)
        with self._lock:
            driver.start()
            self.driver = driver
            self.settled.set()
        self.on_change()

    def _connect(self) -> Connection:
        """The search's connection; a heartbeat every couple of seconds while it comes."""
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"hpnb-connect-{self.name}") as pool:
            future = pool.submit(connect, self.spec.resources, self.name, self.client, self.namespace)
            while True:
                try:
                    return future.result(timeout=HEARTBEAT_INTERVAL)
                except concurrent.futures.TimeoutError:
                    self.store.update_experiment(self.experiment_id, heartbeat=time.time())

    def _checkpoint_location(self) -> CheckpointLocation:
        """Where this search's trials keep checkpoints; CheckpointStoreError, before any trial
        starts, when that store cannot be written (a probe written and deleted)."""
        record = self.store.experiment(self.name)
        location = search_location(self.store.path, self.name, record.id, record.created, self.spec.to_dict())
        CheckpointStore(location).probe()
        return location

    def _check_workers_reach(self, connection: Connection, location: CheckpointLocation) -> None:
        """A worker reads a probe the driver wrote (hpnb's own local cluster shares this disk):
        a store the spec names that workers cannot read is an error before any trial starts; the
        default folder unseen by them is recorded with the search."""
        if self.client is None and self.spec.resources.cluster == "local":
            return
        from hpnb.runner.checkpoint_reach import unreachable_message, workers_problem

        problem = workers_problem(connection.client, location)
        if problem is None:
            return
        named = self.spec.checkpoints.store is not None
        message = unreachable_message(location, problem, named)
        if named:
            raise CheckpointStoreError(message)
        self.store.add_event(self.experiment_id, "checkpoint_store_unreachable", {"message": message})

    def _driver_on(self, connection: Connection, lease: Lease, location: CheckpointLocation) -> Driver:
        """The driver of the search on ``connection``, rebuilt from what the store holds (in the
        start's thread: the runner is imported there, not in the cell that starts the search)."""
        from hpnb.runner.dask_executor import DaskExecutor
        from hpnb.runner.driver import Driver
        from hpnb.runner.recovery import recover

        record = self.store.experiment(self.name)
        parallel = record.parallel or self.spec.parallel or adaptive_parallel(self.spec)
        strategy, stopping_rule = make_strategy(self.spec, record.budget), make_stopping_rule(self.spec)
        strategy.use_stopping_rule(stopping_rule)
        self._learn_warm_start(strategy)
        recovered = recover(self.store, record, strategy, stopping_rule)
        self.store.update_experiment(self.experiment_id, message=CLEAR)
        executor = DaskExecutor(connection.client, restart_worker=connection.restart_worker,
                                per_trial=self.spec.resources.per_trial,
                                trial_timeout=self.spec.trial_timeout)
        return Driver(
            objective=self.objective, spec=self.spec, experiment_id=self.experiment_id, name=self.name,
            store=self.store, executor=executor, strategy=strategy, stopping_rule=stopping_rule,
            recovered=recovered, budget=record.budget, parallel=parallel, scale=connection.scale,
            lease=lease, on_change=self.on_change, on_end=self._ended, checkpoints=location,
        )

    def _learn_warm_start(self, strategy: Strategy) -> None:
        """The strategy learns the trials of ``warm_start`` (read again at every start); a source
        removed since the search began is noted in its events, and the search goes on without."""
        try:
            found = warm_start_trials(self.store, self.spec, self.name)
        except SpecError as err:
            self.store.add_event(self.experiment_id, "warm_start_missing", {"error": str(err)})
            return
        if found is not None:
            used = strategy.learn_prior(found.trials)
            self.store.add_event(self.experiment_id, "warm_start", {"source": found.source, "trials": used,
                                                                    "text": found.describe(used)})

    def _stopped_before_start(self, lease: Lease) -> bool:
        """A stop given while the cluster started ends the search before any trial runs."""
        with self._lock:
            stops = [c for c in self.store.pending_commands(self.experiment_id) if c.kind == "stop"]
            if not stops:
                return False
            for command in stops:
                self.store.answer_command(command.id, DONE, f"search {self.name!r} stopped before any "
                                                            "trial started")
            self.store.update_experiment(self.experiment_id, state=ExperimentState.STOPPED,
                                         message="stopped by the user")
            self._settle(lease)
        self.on_change()
        return True

    def _fail(self, exc: BaseException, waiting_for: str | None, lease: Lease) -> None:
        text = str(exc) if isinstance(exc, HpnbError) else f"{type(exc).__name__}: {exc}"
        if waiting_for and not isinstance(exc, HpnbError):
            text = f"{waiting_for} failed: {text}"
        with contextlib.suppress(Exception):  # a broken store must not hide the first error
            self.store.update_experiment(self.experiment_id, state=ExperimentState.FAILED, message=text)
        with self._lock:
            self._settle(lease)
        self.on_change()

    def _settle(self, lease: Lease) -> None:
        """End a start that runs no driver: let go of the search and of a cluster made for it."""
        lease.release()
        self._close_cluster_made_for_it()
        self.settled.set()

    def _close_cluster_made_for_it(self) -> None:
        close, self._close_cluster = self._close_cluster, None
        if close is not None:
            with contextlib.suppress(Exception):  # the search's outcome is stored already
                close()

    def _ended(self) -> None:
        try:
            self.tracking.finish()
            self._close_cluster_made_for_it()
        finally:
            self._closed.set()
        self.on_change()
