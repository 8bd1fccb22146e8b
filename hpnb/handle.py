"""The ``Search`` handle: one search, live when this process drives it, read-only otherwise.

:mod:`hpnb.api` makes one (:func:`~hpnb.api.search`, :func:`~hpnb.api.resume`,
:func:`~hpnb.api.load`); this module is what the handle does with it: its state and summary,
the commands a live one takes (stop, pause, extend), and the tables of its results.

Example:
    >>> import hpnb
    >>> search = hpnb.load("mlp-lr")  # doctest: +SKIP
    >>> search.state, search.best["params"]  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hpnb.core import control
from hpnb.core.control import ANSWER_WAIT
from hpnb.core.errors import HpnbError
from hpnb.core.objectives import describe
from hpnb.core.spec import ExperimentSpec
from hpnb.core.store import ExperimentRecord, Store
from hpnb.core.store.commands import CommandRecord, CommandRefused, command_problem
from hpnb.core.store.store_errors import UnknownTrial
from hpnb.core.summary import (
    ExperimentState,
    SearchSummary,
    experiment_state,
    summarize,
)
from hpnb.core.trial_log import TrialLog, read_trial_log, unknown_trial
from hpnb.driving.placement import DetachedDriver, Starter, driver_id
from hpnb.runner.checkpoint_store import CheckpointStore, search_location
from hpnb.runner.pausing import PauseRefused
from hpnb.search_insight import SearchInsight

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

    from hpnb.driving.launch import Launch
    from hpnb.runner.driver import Driver

#: seconds between two reads of the store while waiting for a search another process drives.
WAIT_POLL = 0.2


class Search(SearchInsight):
    """A search: live when this process drives it, read-only otherwise.

    Use :func:`search`, :func:`resume` or :func:`load` to get one.
    """

    def __init__(self, store: Store, record: ExperimentRecord, spec: ExperimentSpec, *,
                 objective: Callable[..., Any] | None = None, client: Client | None = None,
                 namespace: Mapping[str, Any] | None = None, detach: Starter | None = None) -> None:
        """A handle of ``record``; with an ``objective`` it can drive the search (see :meth:`start`):
        in this process, or elsewhere through ``detach`` (:func:`hpnb.driving.detached.detached_starter`)."""
        self.store = store
        self.name = record.name
        self.experiment_id = record.id
        self.spec = spec
        self._launch: Launch | None = None
        self._listeners: list[Callable[[], None]] = []
        self._objective = objective
        self._client = client
        self._namespace = namespace
        self._detach = detach
        #: the process of the detached driver this handle started last, if any
        self.detached: DetachedDriver | None = None

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
    def is_running(self) -> bool:
        """Whether a driver runs the search now, in this process or any other (it takes commands)."""
        return self.is_live or control.not_running_reason(self.record, time.time()) is None

    @property
    def budget_spent(self) -> bool:
        """Whether the search has as many trials as its budget (resumed, it ends at once)."""
        return len(self.store.trials(self.experiment_id)) >= self.record.budget

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
                                          message=self.message, limited_by=self._driver.public.limited_by)
        return summary

    @property
    def parallel(self) -> int | None:
        """Trials run at once: the driver's current limit while it runs here, else the stored one."""
        if self._driver is not None and self.is_live:
            return self._driver.public.parallel
        return self.record.parallel

    @property
    def message(self) -> str | None:
        return self._driver.current_message() if self._driver is not None else self.record.message

    # -- control ----------------------------------------------------------------------
    def wait(self, timeout: float | None = None) -> Search:
        """Block until the search ends (or ``timeout`` seconds pass); returns self.

        A search driven by another process (detached, another kernel) is waited for through the
        store. Interrupting the wait (Ctrl-C, the notebook's Interrupt) only stops waiting: the
        search runs on, and this handle still drives it.
        """
        if self._launch is not None:
            self._launch.wait(timeout)
            return self
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.is_running and (deadline is None or time.monotonic() < deadline):
            left = WAIT_POLL if deadline is None else deadline - time.monotonic()
            time.sleep(max(0.0, min(WAIT_POLL, left)))
        return self

    def command(self, kind: str, value: int | None = None, *, wait: float = ANSWER_WAIT,
                source: str = "python") -> CommandRecord:
        """Send a command to the search's driver, whichever process or host runs it, and wait up
        to ``wait`` seconds for its answer (see :mod:`hpnb.core.control`).

        Returns:
            The command as stored: ``state`` done (``reply`` says what was done) or, when the
            driver has not answered within ``wait``, pending.

        Raises:
            CommandRefused: the driver refused it, or no driver runs the search (the message
                says why); :class:`PauseRefused` for a pause or resume.

        Example:
            >>> search.command("extend", 10).reply  # doctest: +SKIP
            "search 'mlp-lr' has a budget of 50 trials now (+10)"
        """
        try:
            sent = control.send(self.store, self.name, kind, value, source=f"{source} {driver_id()}")
            if self._launch is not None:
                self._launch.wake()
            return control.raise_if_refused(control.await_answer(self.store, sent, wait))
        except CommandRefused as refused:
            if kind in ("pause_trial", "resume_trial"):
                raise PauseRefused(str(refused)) from None
            raise

    def stop(self) -> None:
        """Stop the search: running trials are asked to stop, none is started."""
        self.command("stop")

    def stop_trial(self, trial_id: int) -> None:
        """Ask one running trial to stop (it is marked STOPPED)."""
        self.command("stop_trial", int(trial_id))

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
        self.command("pause_trial", int(trial_id))

    def resume_trial(self, trial_id: int) -> None:
        """Resume a paused trial: it takes the next free slot, from its latest checkpoint."""
        self.command("resume_trial", int(trial_id))

    def _check_trial(self, trial_id: int) -> None:
        try:
            self.store.trial(self.experiment_id, int(trial_id))
        except UnknownTrial:
            raise unknown_trial(self.name, trial_id, self.store.trial_id_range(self.experiment_id)) from None

    def artifacts(self, trial_id: int) -> list[dict[str, Any]]:
        """The files trial ``trial_id`` recorded with ``hpnb.artifact``: ``{"name", "size", "path"}``
        each (``path``: where the checkpoint store keeps it), by name.

        Example:
            >>> [a["name"] for a in search.artifacts(3)]  # doctest: +SKIP
            ['loss.png', 'predictions.csv']
        """
        self._check_trial(trial_id)
        return self.checkpoint_store().artifacts(int(trial_id))

    def checkpoint_store(self) -> CheckpointStore:
        """Where this search's trials keep their checkpoints and artifacts (``checkpoints.store``)."""
        record = self.record
        return CheckpointStore(search_location(self.store.path, record.name, record.id, record.created,
                                               record.spec))

    def extend(self, n: int) -> None:
        """Raise the budget by ``n`` trials; a finished search this handle can run starts again."""
        problem = command_problem("extend", n)
        if problem is not None:
            raise CommandRefused(problem)
        if self.is_running:
            self.command("extend", int(n))
            return
        self.wait()
        if self._objective is None:
            raise HpnbError(f"extend: search {self.name!r} is not running; hpnb.resume(name, objective) "
                            f"and then extend, or `hpnb extend {self.name} {n}` and "
                            f"`hpnb resume {self.name} --detach`")
        record = self.record
        self.store.update_experiment(self.experiment_id, budget=record.budget + int(n))
        self._start()

    def set_parallel(self, n: int) -> None:
        """Run at most ``n`` trials at once from now on."""
        problem = command_problem("parallel", n)
        if problem is not None:
            raise CommandRefused(problem)
        if self.is_running:
            self.command("parallel", int(n))
        else:  # the limit the next run of the search starts with
            self.store.update_experiment(self.experiment_id, parallel=int(n))

    def show(self) -> Any:
        """The live dashboard of this search in a notebook cell, in any kernel: its controls act on
        the search wherever its driver runs (as ``hpnb.show(name)``).

        Example:
            >>> hpnb.load("mlp-lr").show()  # doctest: +SKIP
        """
        import hpnb

        return hpnb.show(self.name, store=self.store)

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
        """The best trial: ``{"trial_id", "params", "value", "metrics", "runs", "std"}``, or None. With
        ``constraints:``, the best feasible one (None while no trial is feasible).

        In a noisy search (``noise: true``, or a configuration that gave different results when
        run again) it is the configuration of best estimated mean over its runs: ``value`` is the
        mean of its ``runs``, ``std`` their standard deviation (None for one run).

        Raises:
            HpnbError: the search has several objectives: it has a Pareto front
                (:attr:`pareto`), not one best trial.
        """
        from hpnb.core.summary import record_best

        if self.spec.is_multi_objective:
            goals = describe(self.spec.objectives)
            raise HpnbError(f"search {self.name!r} has {len(self.spec.objectives)} objectives ({goals}): "
                            "it has a Pareto front of trials, not one best; see search.pareto")
        best = record_best(self.record, self.store.trials(self.experiment_id))
        if best is None:
            return None
        return {"trial_id": best.trial.trial_id, "params": dict(best.trial.params), "value": best.value,
                "metrics": dict(best.trial.metrics), "runs": best.runs, "std": best.std}

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
    def _notify(self) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a broken display must not stop the search
                listener()

    def _start(self, background: bool = False, commands_since: float | None = None) -> None:
        """Start (or restart) the driver from what the store holds; with ``background``, return
        while its cluster starts (a failure to start is then recorded in the search). A detached
        handle starts the driver in a process of its own and returns at once."""
        assert self._objective is not None
        if self.is_live:
            raise HpnbError(f"search {self.name!r} is already running")
        if self._detach is not None:
            self.detached = self._detach(self.store, self.name, self.spec, commands_since)
            return
        from hpnb.driving.launch import (
            Launch,  # the runner: not imported by a handle that only views or steers
        )

        self._launch = Launch(self.store, self.experiment_id, self.name, self.spec, self._objective,
                              holder=driver_id(), client=self._client, namespace=self._namespace,
                              on_change=self._notify, commands_since=commands_since)
        self._launch.start(background)

