"""The public API: the ``Search`` handle and the functions that start, resume and open searches.

It sits above the runner (the driver loop) and the cluster backends (which give it a Dask
client), and below the notebook layer.

Example:
    >>> import hpnb
    >>> def train(x):
    ...     return {"loss": (x - 0.3) ** 2}
    >>> search = hpnb.search(train, metric="loss", mode="min", strategy="random", trials=8,
    ...                      parameters={"x": {"min": 0.0, "max": 1.0}})  # doctest: +SKIP
    >>> search.wait().best["params"]  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import socket
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hpnb.cluster.connect import check_local_fits
from hpnb.core.early_stopping import scheduler_class
from hpnb.core.early_stopping.base import Scheduler
from hpnb.core.errors import HpnbError
from hpnb.core.frozen import thaw
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.spec.values import check_experiment_name, experiment_name_problem
from hpnb.core.store import ExperimentRecord, Store
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import Strategy
from hpnb.core.summary import (
    ExperimentState,
    SearchSummary,
    driver_alive,
    experiment_state,
    heartbeat_age,
    summarize,
)
from hpnb.runner.driver import Command, Driver
from hpnb.runner.lease import DriverLease
from hpnb.runner.recovery import recover

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

StoreLike = Store | str | os.PathLike[str] | None


class Search:
    """A search: live when this process drives it, read-only otherwise.

    Use :func:`search`, :func:`resume` or :func:`load` to get one.
    """

    def __init__(self, store: Store, record: ExperimentRecord, spec: ExperimentSpec, *,
                 objective: Callable[..., Any] | None = None, client: Client | None = None,
                 namespace: Mapping[str, Any] | None = None) -> None:
        """A handle of ``record``; with an ``objective`` it can drive the search (see :meth:`start`)."""
        self.store = store
        self.name = record.name
        self.experiment_id = record.id
        self.spec = spec
        self._driver: Driver | None = None
        self._listeners: list[Callable[[], None]] = []
        self._objective = objective
        self._client = client
        self._namespace = namespace
        self._close_cluster: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"<hpnb.Search {self.name!r} {self.state}>"

    # -- state ------------------------------------------------------------------------
    @property
    def is_live(self) -> bool:
        """Whether this process drives the search right now."""
        # never Thread.is_alive: an interrupted join (Ctrl-C in wait) can make it lie
        return self._driver is not None and not self._driver.ended.is_set()

    @property
    def record(self) -> ExperimentRecord:
        return self.store.experiment(self.name)

    @property
    def state(self) -> str:
        """RUNNING, COMPLETED, STOPPED, FAILED or INTERRUPTED (its driver died: no heartbeat lately)."""
        if self._driver is not None:
            return self._driver.public.state
        return experiment_state(self.record, time.time()).value

    @property
    def summary(self) -> SearchSummary:
        """State, progress counts, best trial, timings and message, as every front end shows them."""
        summary = summarize(self.record, self.store.trials(self.experiment_id), time.time())
        if self._driver is not None:  # this process knows best: no heartbeat delay
            summary = dataclasses.replace(summary, state=ExperimentState(self._driver.public.state),
                                          message=self.message)
        return summary

    @property
    def message(self) -> str | None:
        return self._driver.current_message() if self._driver is not None else self.record.message

    # -- control ----------------------------------------------------------------------
    def wait(self, timeout: float | None = None) -> Search:
        """Block until the search ends (or ``timeout`` seconds pass); returns self.

        Interrupting the wait (Ctrl-C, the notebook's Interrupt) only stops waiting:
        the search runs on, and this handle still drives it.
        """
        if self._driver is not None:
            self._driver.ended.wait(timeout)
        return self

    def stop(self) -> None:
        """Stop the search: running trials are asked to stop, none is started."""
        if not (self.is_live and self._send(Command("stop"))):
            self.store.request_stop(self.name)

    def stop_trial(self, trial_id: int) -> None:
        """Ask one running trial to stop (it is marked STOPPED)."""
        self._require_live("stop a trial")
        self._send(Command("stop_trial", int(trial_id)))

    def extend(self, n: int) -> None:
        """Raise the budget by ``n`` trials; a finished search starts running again."""
        if int(n) <= 0:
            raise HpnbError(f"extend: n must be a positive number of trials (got {n})")
        if self.is_live and self._send(Command("extend", int(n))):
            return
        self.wait()
        if self._objective is None:
            raise HpnbError(f"extend: search {self.name!r} is not running here; "
                            "use hpnb.resume(name, objective) and then extend")
        record = self.record
        self.store.update_experiment(self.experiment_id, budget=record.budget + int(n))
        self._start()

    def set_parallel(self, n: int) -> None:
        """Run at most ``n`` trials at once from now on."""
        if int(n) <= 0:
            raise HpnbError(f"set_parallel: n must be at least 1 (got {n})")
        if not (self.is_live and self._send(Command("parallel", int(n)))):
            self.store.update_experiment(self.experiment_id, parallel=int(n))

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` (from the driver thread) after each batch of changes is stored.

        Returns:
            A function that removes the listener.
        """
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- data -------------------------------------------------------------------------
    @property
    def results(self) -> pd.DataFrame:
        """One row per trial: id, state, parameters, final and best metric, steps, times, worker, error."""
        from hpnb.core import frames

        return frames.results_frame(self.record, self.store.trials(self.experiment_id))

    @property
    def history(self) -> pd.DataFrame:
        """Every reported result, one row each (long format)."""
        from hpnb.core import frames

        return frames.history_frame(self.store.results(self.experiment_id))

    @property
    def best(self) -> dict[str, Any] | None:
        """The best trial: ``{"trial_id", "params", "value", "metrics"}``, or None."""
        from hpnb.core.summary import best_trial

        trial = best_trial(self.store.trials(self.experiment_id), self.record.mode)
        if trial is None:
            return None
        return {"trial_id": trial.trial_id, "params": dict(trial.params), "value": trial.value,
                "metrics": dict(trial.metrics)}

    @property
    def lineage(self) -> pd.DataFrame:
        """Population-based training: one row per member start and per exploit
        (member, step, event, donor, donor_step, then the member's hyperparameters)."""
        import pandas as pd

        saved = (self.record.strategy_state or {}).get("strategy") or {}
        rows = [{"member": r["member"], "step": r["step"], "event": r["event"], "donor": r["donor"],
                 "donor_step": r["donor_step"], **r["params"]} for r in saved.get("lineage", [])]
        columns = ["member", "step", "event", "donor", "donor_step", *self.spec.space.names]
        return pd.DataFrame(rows, columns=columns)

    # -- internals --------------------------------------------------------------------
    def _send(self, command: Command) -> bool:
        """True when the running driver took ``command``."""
        return self._driver is not None and self._driver.offer(command)

    def _require_live(self, what: str) -> None:
        if not self.is_live:
            raise HpnbError(f"cannot {what}: search {self.name!r} is not running in this process")

    def _notify(self) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a broken display must not stop the search
                listener()

    def _start(self) -> None:
        """Start (or restart) the driver thread from what the store holds."""
        from hpnb.cluster.connect import connect
        from hpnb.runner.dask_executor import DaskExecutor

        assert self._objective is not None
        if self.is_live:
            raise HpnbError(f"search {self.name!r} is already running")
        lease = DriverLease.take(self.store.path.parent, self.experiment_id, driver_id(), self.name)
        try:
            connection = connect(self.spec.resources, self.name, self._client, self._namespace)
            self._close_cluster = connection.close
            record = self.record
            parallel = record.parallel or self.spec.parallel or adaptive_parallel(self.spec)
            strategy, scheduler = make_strategy(self.spec, record.budget), make_scheduler(self.spec)
            recovered = recover(self.store, record, strategy, scheduler)
            self.store.clear_stop(self.experiment_id)
            self.store.update_experiment(self.experiment_id, driver=driver_id())
            executor = DaskExecutor(connection.client, restart_worker=connection.restart_worker)
            self._driver = Driver(
                objective=self._objective, spec=self.spec, experiment_id=self.experiment_id, name=self.name,
                store=self.store, executor=executor, strategy=strategy, scheduler=scheduler,
                recovered=recovered, budget=record.budget, parallel=parallel, scale=connection.scale,
                lease=lease, on_change=self._notify, on_end=self._ended,
            )
        except BaseException:
            lease.release()
            raise
        self._driver.start()

    def _ended(self) -> None:
        if self._close_cluster is not None:
            self._close_cluster()
            self._close_cluster = None
        self._notify()


def adaptive_parallel(spec: ExperimentSpec) -> int | None:
    """With an adaptive local cluster, as many trials as its largest size has slots."""
    adapt = spec.resources.adapt
    return None if not adapt else int(adapt["maximum"]) * spec.resources.threads_per_worker


def make_strategy(spec: ExperimentSpec, budget: int) -> Strategy:
    cls = strategy_class(spec.strategy.name)
    return cls(spec.space, spec.mode, seed=spec.seed, budget=budget, **thaw(spec.strategy.options))


def make_scheduler(spec: ExperimentSpec) -> Scheduler:
    cls = scheduler_class(spec.early_stopping.rule)
    return cls(mode=spec.mode, seed=spec.seed, **thaw(spec.early_stopping.options))


def driver_id() -> str:
    """``host:pid`` of this process, stored so others can tell whether the driver still lives."""
    return f"{socket.gethostname()}:{os.getpid()}"


def open_store(store: StoreLike, readonly: bool = False) -> Store:
    if isinstance(store, Store):
        return store
    return Store(store, readonly=readonly)


def check_picklable(objective: Callable[..., Any]) -> None:
    """Fail before anything starts when ``objective`` cannot travel to a worker."""
    import cloudpickle

    if not callable(objective):
        raise HpnbError(f"the objective must be a function, got {type(objective).__name__}")
    try:
        cloudpickle.dumps(objective)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise HpnbError(f"the objective {getattr(objective, '__name__', objective)!r} cannot be pickled "
                        f"to run on Dask workers: {exc}. Objects it uses (open files, locks, "
                        "database connections) should be created inside the function.") from exc


def search(objective: Callable[..., Any], spec: str | Mapping[str, Any] | ExperimentSpec | None = None, *,
           name: str | None = None, store: StoreLike = None, client: Client | None = None,
           overwrite: bool = False, resume: bool = False, namespace: Mapping[str, Any] | None = None,
           source: str | None = None, **spec_fields: Any) -> Search:
    """Start a search in the background and return its handle at once.

    Args:
        objective: ``f(**params)`` or ``f(config)``; returns a number, a dict of metrics,
            or nothing after ``hpnb.report``.
        spec: YAML text, a dict, or a parsed :class:`ExperimentSpec`; ``**spec_fields``
            are spec keys given directly (and override ``spec``'s).
        name: the search's name in the store (default: the spec's ``name`` or the objective's).
        store: a :class:`Store` or a path (default: ``$HPNB_HOME/hpnb.sqlite``).
        client: run on this Dask client instead of ``resources.cluster``.
        overwrite: replace a stored search of the same name.
        resume: continue a stored search of the same name.
        namespace: where ``resources.cluster: NAME`` is looked up (the notebook's).

    Example:
        >>> search = hpnb.search(train, metric="loss", trials=20,
        ...                      parameters={"lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1}})
        ... # doctest: +SKIP
    """
    parsed = _parse(spec, spec_fields)
    check_picklable(objective)
    check_local_fits(parsed.resources)
    name = _search_name(name, parsed, objective)
    opened = open_store(store)
    if resume and opened.find_experiment(name) is not None:
        return _resume(opened, name, objective, client, namespace)
    record = opened.create_experiment(
        name, parsed.to_dict(), source=source if source is not None else _source_text(spec),
        metric=parsed.metric, mode=parsed.mode, strategy=parsed.strategy.name, budget=parsed.trials,
        parallel=parsed.parallel, overwrite=overwrite,
    )
    handle = Search(opened, record, parsed, objective=objective, client=client, namespace=namespace)
    handle._start()
    return handle


def _search_name(name: str | None, parsed: ExperimentSpec, objective: Callable[..., Any]) -> str:
    """The name given (checked by the spec's one name rule), the spec's, or the objective's."""
    if name is not None:
        return check_experiment_name(name, "name")
    if parsed.name:
        return parsed.name
    named = getattr(objective, "__name__", "")
    return named if experiment_name_problem(named) is None else "search"


def _source_text(spec: object) -> str | None:
    return spec if isinstance(spec, str) else None


def _parse(spec: str | Mapping[str, Any] | ExperimentSpec | None,
           fields: Mapping[str, Any]) -> ExperimentSpec:
    if isinstance(spec, ExperimentSpec):
        if not fields:
            return spec
        return parse_spec({**spec.to_dict(), **fields})
    if spec is None:
        return parse_spec(dict(fields))
    return parse_spec(spec, overrides=dict(fields) or None)


def resume(name: str, objective: Callable[..., Any], *, store: StoreLike = None, client: Client | None = None,
           namespace: Mapping[str, Any] | None = None) -> Search:
    """Continue a stored search: finished trials stay, interrupted ones run again.

    Example:
        >>> search = hpnb.resume("mlp-lr", train)  # doctest: +SKIP
    """
    check_picklable(objective)
    return _resume(open_store(store), name, objective, client, namespace)


def _resume(opened: Store, name: str, objective: Callable[..., Any], client: Client | None,
            namespace: Mapping[str, Any] | None) -> Search:
    record = opened.experiment(name)
    _refuse_if_driven_elsewhere(record)
    handle = Search(opened, record, parse_spec(record.spec), objective=objective, client=client,
                    namespace=namespace)
    handle._start()
    return handle


def _refuse_if_driven_elsewhere(record: ExperimentRecord) -> None:
    """A driver on another host is seen by its heartbeat (one on this host by its lock)."""
    host = (record.driver or "").rpartition(":")[0]
    now = time.time()
    if record.state == "RUNNING" and host != socket.gethostname() and driver_alive(record, now):
        age = heartbeat_age(record, now)
        raise HpnbError(f"search {record.name!r} is already driven by {record.driver} "
                        f"(its last heartbeat was {age:.0f} s ago)")


def load(name: str, *, store: StoreLike = None) -> Search:
    """Open a stored search read-only (no driver): results, history, best, stop.

    Example:
        >>> hpnb.load("mlp-lr").results  # doctest: +SKIP
    """
    opened = open_store(store, readonly=True)
    record = opened.experiment(name)
    return Search(opened, record, parse_spec(record.spec))
