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
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.objectives import describe
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.spec.values import check_experiment_name, experiment_name_problem
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.store.errors import UnknownTrial
from hpnb.core.summary import (
    ExperimentState,
    SearchSummary,
    driver_alive,
    experiment_state,
    heartbeat_age,
    summarize,
)
from hpnb.core.trial_log import TrialLog, read_trial_log, unknown_trial
from hpnb.insight import SearchInsight
from hpnb.launch import Launch
from hpnb.runner.driver import Command, Driver
from hpnb.runner.pausing import PauseRefused, pause_problem, resume_problem

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

StoreLike = Store | str | os.PathLike[str] | None


class Search(SearchInsight):
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
        self._launch: Launch | None = None
        self._listeners: list[Callable[[], None]] = []
        self._objective = objective
        self._client = client
        self._namespace = namespace

    def __repr__(self) -> str:
        return f"<hpnb.Search {self.name!r} {self.state}>"

    # -- state ------------------------------------------------------------------------
    @property
    def objective(self) -> Callable[..., Any] | None:
        """The function this handle runs trials with; None for a search opened with :func:`load`."""
        return self._objective

    @property
    def is_live(self) -> bool:
        """Whether this process drives the search right now."""
        # never Thread.is_alive: an interrupted join (Ctrl-C in wait) can make it lie
        return self._launch is not None and self._launch.is_live

    @property
    def _driver(self) -> Driver | None:
        return self._launch.driver if self._launch is not None else None

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
        if self._launch is not None:
            self._launch.wait(timeout)
        return self

    def stop(self) -> None:
        """Stop the search: running trials are asked to stop, none is started."""
        if not (self.is_live and self._send(Command("stop"))):
            self.store.request_stop(self.name)

    def stop_trial(self, trial_id: int) -> None:
        """Ask one running trial to stop (it is marked STOPPED)."""
        self._require_live("stop a trial")
        self._send(Command("stop_trial", int(trial_id)))

    def pause_trial(self, trial_id: int) -> None:
        """Pause a trial at its next decision point (its next report when the search has none): its
        slot is freed and it resumes later, on any worker, from its latest checkpoint.

        It resumes when you call :meth:`resume_trial`, when nothing else is left to run, or when
        the search is resumed after it ended.

        Raises:
            PauseRefused: the trial is not running or pending, or has no checkpoint yet.

        Example:
            >>> search.pause_trial(3)  # doctest: +SKIP
        """
        self._require_live("pause a trial")
        self._check_trial(trial_id, pause_problem)
        self._send(Command("pause_trial", int(trial_id)))

    def resume_trial(self, trial_id: int) -> None:
        """Resume a paused trial: it takes the next free slot, from its latest checkpoint."""
        self._require_live("resume a trial (hpnb.resume(name, objective) resumes a search and its "
                           "paused trials)")
        self._check_trial(trial_id, resume_problem)
        self._send(Command("resume_trial", int(trial_id)))

    def _check_trial(self, trial_id: int, problem: Callable[[TrialRecord], str | None]) -> None:
        try:
            trial = self.store.trial(self.experiment_id, int(trial_id))
        except UnknownTrial:
            raise unknown_trial(self.name, trial_id, self.store.trial_id_range(self.experiment_id)) from None
        reason = problem(trial)
        if reason is not None:
            raise PauseRefused(reason)

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
        """The best trial: ``{"trial_id", "params", "value", "metrics"}``, or None.

        Raises:
            HpnbError: the search has several objectives: it has a Pareto front
                (:attr:`pareto`), not one best trial.
        """
        from hpnb.core.summary import best_trial

        if self.spec.is_multi_objective:
            goals = describe(self.spec.objectives)
            raise HpnbError(f"search {self.name!r} has {len(self.spec.objectives)} objectives ({goals}): "
                            "it has a Pareto front of trials, not one best; see search.pareto")
        trial = best_trial(self.store.trials(self.experiment_id), self.record.mode)
        if trial is None:
            return None
        return {"trial_id": trial.trial_id, "params": dict(trial.params), "value": trial.value,
                "metrics": dict(trial.metrics)}

    @property
    def pareto(self) -> pd.DataFrame:
        """The trials on the Pareto front (no other trial is at least as good on every objective
        and better on one), best first on the first objective, as rows of :attr:`results` with a
        column per objective. A search with one objective: its best trial.

        Example:
            >>> search.pareto[["trial_id", "val_loss", "latency_ms"]]  # doctest: +SKIP
        """
        from hpnb.core import frames

        return frames.pareto_frame(self.record, self.store.trials(self.experiment_id))

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

    def logs(self, trial_id: int) -> TrialLog:
        """What trial ``trial_id`` printed (the last 200 lines or 64 KiB of stdout and stderr), its
        traceback when it failed, the worker it ran on and its peak memory.

        Raises:
            UnknownTrial: the search has no such trial (the message names the ids it has).

        Example:
            >>> print(search.logs(3).stdout)  # doctest: +SKIP
        """
        return read_trial_log(self.store, self.record, trial_id, time.time())

    # -- internals --------------------------------------------------------------------
    def _send(self, command: Command) -> bool:
        """True when the running driver took ``command``."""
        return self._launch is not None and self._launch.offer(command)

    def _require_live(self, what: str) -> None:
        if not self.is_live:
            raise HpnbError(f"cannot {what}: search {self.name!r} is not running in this process")

    def _notify(self) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a broken display must not stop the search
                listener()

    def _start(self, background: bool = False) -> None:
        """Start (or restart) the driver from what the store holds; with ``background``, return
        while its cluster starts (a failure to start is then recorded in the search)."""
        assert self._objective is not None
        if self.is_live:
            raise HpnbError(f"search {self.name!r} is already running")
        self._launch = Launch(self.store, self.experiment_id, self.name, self.spec, self._objective,
                              holder=driver_id(), client=self._client, namespace=self._namespace,
                              on_change=self._notify)
        self._launch.start(background)


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
           source: str | None = None, wait_for_cluster: bool = True, **spec_fields: Any) -> Search:
    """Start a search in the background and return its handle once its cluster is up.

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
        wait_for_cluster: False returns at once, recorded and RUNNING, while the cluster starts
            in the background; a failure to start is then recorded in the search (FAILED, and
            its ``message`` says why) instead of raised.

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
        return _resume(opened, name, objective, client, namespace, background=not wait_for_cluster)
    _announce_warm_start(opened, parsed, name, source if source is not None else _source_text(spec))
    record = opened.create_experiment(
        name, parsed.to_dict(), source=source if source is not None else _source_text(spec),
        metric=parsed.metric, mode=parsed.mode, strategy=parsed.strategy.name, budget=parsed.trials,
        parallel=parsed.parallel, overwrite=overwrite,
    )
    handle = Search(opened, record, parsed, objective=objective, client=client, namespace=namespace)
    handle._start(background=not wait_for_cluster)
    return handle


def _announce_warm_start(opened: Store, parsed: ExperimentSpec, name: str, text: str | None) -> None:
    """Check ``warm_start`` against the store before anything starts and print what it learns.

    Raises:
        SpecError: it names no stored search (or this one), with its line in ``text``.
    """
    from hpnb.core.spec.yaml_lines import line_of
    from hpnb.core.warm_start import warm_start_trials
    from hpnb.launch import make_strategy

    try:
        found = warm_start_trials(opened, parsed, name)
    except SpecError as err:
        raise err.with_line(line_of(text, err.path)) from None
    if found is not None:
        print(found.describe(make_strategy(parsed, parsed.trials).learn_prior(found.trials)))


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
            namespace: Mapping[str, Any] | None, background: bool = False) -> Search:
    record = opened.experiment(name)
    _refuse_if_driven_elsewhere(record)
    handle = Search(opened, record, parse_spec(record.spec), objective=objective, client=client,
                    namespace=namespace)
    handle._start(background)
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
