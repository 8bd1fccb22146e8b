"""The driver's side of trials that span several workers (``resources.per_trial.workers``).

A gang attempt is one task per rank, each pinned to a worker of its own and submitted together
once every rank has a free slot (:mod:`hpnb.runner.ranks.placement`): the driver still sees one
trial. Rank 0's task is the attempt's (its start, reports and outcome); the others say when they
started and how they ended. The attempt ends as rank 0 ended unless another rank failed, whose
traceback it then carries, with every rank's output in its log (each line marked with its rank).
When any rank ends, is lost with its worker or fails, the others are asked to stop and cancelled
after :data:`RANK_GRACE` seconds, so no rank is left waiting and every slot is free again.

Example:
    >>> gangs = GangRuns(executor)  # doctest: +SKIP
    >>> gangs.submit(objective_key, tasks)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence, Set
from functools import partial
from typing import Any, Protocol

from distributed import Client, Future, Variable

from hpnb.core.errors import HpnbError
from hpnb.core.spec.trial_resources import TrialResources
from hpnb.runner.dask_task import COPY_MISSING, run_on_worker, verdict_name
from hpnb.runner.executor import PORT_TAKEN, AttemptDone, Event, RanksChanged
from hpnb.runner.graces import Graces
from hpnb.runner.ranks.gang import Gang, collective_timeout, passed_through, worker_host
from hpnb.runner.ranks.placement import GangQueue
from hpnb.runner.ranks.rank_run import free_port, free_port_here, is_this_machine
from hpnb.runner.worker.objective import TrialTask

Key = tuple[int, int]
log = logging.getLogger("hpnb")


class GangHost(Protocol):
    """What gang attempts use of the executor they belong to (a
    :class:`~hpnb.runner.dask_executor.DaskExecutor`)."""

    client: Client
    topic: str
    per_trial: TrialResources
    trial_timeout: float | None
    graces: Graces
    sink: Callable[[Event], None]

    def task_key(self, trial_id: int, attempt: int) -> str: ...
    def watch_attempt(self, task: TrialTask, future: Future) -> None: ...
    def lose(self, key: Key, worker: str | None, reason: str) -> None: ...
    def copy_missing(self, key: Key, told: dict[str, Any]) -> None: ...
    def is_lost(self, key: Key) -> bool: ...
    def stop(self, trial_id: int, attempt: int) -> None: ...
    def write_off(self, task_key: str, worker: str) -> str: ...
    def stuck_threads(self) -> dict[str, int]: ...
#: seconds the other ranks have to end once one rank ended, before their tasks are cancelled.
RANK_GRACE = 10.0
#: a rank's state once its objective returned, by the outcome's status.
ENDED_AS = {"ok": "completed", "failed": "failed", "stopped": "stopped"}
#: the states a rank never leaves.
FINAL_STATES = frozenset({"completed", "failed", "stopped", "lost"})


class GangRuns:
    """The gang attempts of one :class:`~hpnb.runner.dask_executor.DaskExecutor`."""

    def __init__(self, executor: GangHost) -> None:
        per_trial = executor.per_trial
        if per_trial.procs_per_worker > 1:
            raise HpnbError(
                f"resources.per_trial.procs_per_worker: {per_trial.procs_per_worker} ranks in one worker "
                "need a process each, which hpnb does not start yet (the ranks of one process would share "
                f"its environment); give each rank a worker of its own instead: workers: {per_trial.ranks} "
                "with one-thread workers")
        self.executor = executor
        self.queue: GangQueue[Key] = GangQueue()
        self._lock = threading.RLock()
        self._waiting: dict[Key, tuple[str, TrialTask]] = {}
        self._gangs: dict[Key, Gang] = {}
        self._futures: dict[Key, list[Future]] = {}
        self._outcomes: dict[Key, dict[int, dict[str, Any]]] = {}
        self._states: dict[Key, list[str]] = {}
        self._written_off: set[str] = set()
        self._stopping: dict[Key, threading.Lock] = {}
        self._busy: Counter[str] = Counter()
        self._placing = threading.Lock()

    # -- placing ---------------------------------------------------------------------------
    def min_ranks(self) -> int:
        """The fewest ranks a trial of this search has."""
        per_trial = self.executor.per_trial
        return 1 if per_trial.workers_parameter else per_trial.ranks

    def waiting_for(self) -> str:
        """What the first waiting trial needs, in words: ``2 workers with gpu=1``."""
        with self._lock:
            first = next(iter(self._waiting.values()), None)
        per_trial = self.executor.per_trial
        ranks = per_trial.ranks_for(first[1].params) if first is not None else self.min_ranks()
        amounts = TrialResources(per_trial.amounts, per_trial.raw)
        each = f" with {amounts.describe()}" if amounts else ""
        return f"{ranks} worker{'s' if ranks > 1 else ''}{each}"

    def submit(self, objective_key: str, tasks: Sequence[TrialTask]) -> None:
        """Queue ``tasks``' attempts; each starts once all its ranks have a slot."""
        with self._lock:
            for task in tasks:
                key = (task.trial_id, task.attempt)
                self._waiting[key] = (objective_key, task)
                self.queue.add(key, self.executor.per_trial.ranks_for(task.params))
        self.place()

    def place(self) -> None:
        """Start the queued attempts that fit now (never from the client's event loop)."""
        with self._placing:
            if not len(self.queue):
                return
            free = self._free_slots()
            with self._lock:
                placed = self.queue.place(free)
                started = [(key, workers, *self._waiting.pop(key)) for key, workers in placed]
                for _, workers, _, _ in started:
                    self._busy.update(workers)
            for key, workers, objective_key, task in started:
                self._start(key, workers, objective_key, task)

    def place_soon(self) -> None:
        threading.Thread(target=self.place, daemon=True, name="hpnb-place-ranks").start()

    def _free_slots(self) -> dict[str, int]:
        """Free rank slots per worker: its threads (or what its resources hold) less the ranks running."""
        info = self.executor.client.scheduler_info(n_workers=-1).get("workers", {})
        need = self.executor.per_trial.amounts
        stuck = self.executor.stuck_threads()
        free = {}
        for address, worker in info.items():
            slots = int(worker.get("nthreads", 1))
            has = worker.get("resources") or {}
            for name, amount in need.items():
                slots = min(slots, int(float(has.get(name, 0.0)) // amount + 1e-9) if amount else slots)
            free[address] = max(0, slots - self._busy[address] - stuck.get(address, 0))
        return free

    def _start(self, key: Key, workers: tuple[str, ...], objective_key: str, task: TrialTask) -> None:
        try:
            master = self._master(workers[0])
        except Exception as exc:  # its worker left meanwhile: the attempt waits for workers again
            log.warning("trial %d: no port from rank 0's worker %s (%s)", key[0], workers[0], exc)
            with self._lock:
                self._busy.subtract(workers)
                self._waiting[key] = (objective_key, task)
                self.queue.add(key, len(workers))
            return
        gang = Gang(workers, master, collective_timeout(self.executor.trial_timeout),
                    settings=passed_through(os.environ))
        with self._lock:
            self._gangs[key] = gang
            self._outcomes[key] = {}
            self._states[key] = ["starting"] * gang.size
        self.executor.sink(RanksChanged(*key, tuple((worker, "starting") for worker in workers)))
        placement: dict[str, Any] = {"allow_other_workers": False, "pure": False}
        if self.executor.per_trial.amounts:
            placement["resources"] = dict(self.executor.per_trial.amounts)
        base = self.executor.task_key(*key)
        futures = [self.executor.client.submit(run_on_worker, objective_key,
                                               dataclasses.replace(task, gang=gang, rank=rank),
                                               self.executor.topic, workers=[worker],
                                               key=base if rank == 0 else f"{base}-rank-{rank}", **placement)
                   for rank, worker in enumerate(workers)]
        with self._lock:
            self._futures[key] = futures[1:]
        self.executor.watch_attempt(task, futures[0])
        for rank, future in enumerate(futures[1:], start=1):
            future.add_done_callback(partial(self._rank_done, key, rank))

    def _master(self, worker: str) -> str:
        """``host:port`` for rank 0 on ``worker``, the port free on its host now and for this
        attempt alone: chosen here when that host is this machine, else asked of the worker."""
        host = worker_host(worker)
        if is_this_machine(host):
            return f"{host}:{free_port(host)}"
        return str(self.executor.client.run(free_port_here, workers=[worker])[worker])

    # -- what the ranks say ---------------------------------------------------------------------
    def is_gang(self, key: Key) -> bool:
        with self._lock:
            return key in self._gangs or key in self._waiting

    def mark(self, key: Key, rank: int, state: str) -> None:
        """Rank ``rank`` of the attempt is now in ``state`` (a rank that ended stays as it ended);
        the driver is told the attempt's ranks."""
        with self._lock:
            gang, states = self._gangs.get(key), self._states.get(key)
            if gang is None or states is None or states[rank] == state or states[rank] in FINAL_STATES:
                return
            states[rank] = state
            ranks = tuple(zip(gang.workers, states, strict=True))
        self.executor.sink(RanksChanged(*key, ranks))

    def on_message(self, message: dict[str, Any]) -> None:
        """A message of a rank beyond 0 (in the client's event loop: no call to the scheduler here)."""
        key, rank = (int(message["trial"]), int(message["attempt"])), int(message["rank"])
        if "started" in message:
            self.mark(key, rank, "running")
        elif COPY_MISSING in message:
            self.executor.copy_missing(key, message)
            self._stop_soon(key)
        elif "outcome" in message:
            with self._lock:
                self._outcomes.setdefault(key, {})[rank] = message["outcome"]
            self.mark(key, rank, ENDED_AS.get(str(message["outcome"].get("status")), "failed"))
            if message["outcome"].get("status") == "failed":
                self._stop_soon(key)  # its peers would wait in a collective for it

    def _rank_done(self, key: Key, rank: int, future: Future) -> None:
        """A rank's task ended (in a thread of its own): one that never returned loses the attempt."""
        with self._lock:
            told = rank in self._outcomes.get(key, {}) or key not in self._gangs
        if told or future.status in ("finished", "cancelled"):
            return
        gang = self._gangs.get(key)
        worker = gang.workers[rank] if gang else None
        self.mark(key, rank, "lost")
        self.executor.lose(key, worker, f"rank {rank} of the trial was lost (its worker {worker} died or "
                                        "left the cluster): every rank of the attempt is ended")
        self.stop_ranks(key)

    def on_worker_removed(self, running: Set[str]) -> list[Key]:
        """The gang attempts one of whose ranks beyond 0 ran on a removed worker (marked lost)."""
        with self._lock:
            lost = [(key, rank) for key, futures in self._futures.items()
                    for rank, future in enumerate(futures, start=1) if future.key in running]
        for key, rank in lost:
            self.mark(key, rank, "lost")
        return list(dict.fromkeys(key for key, _ in lost))

    def outcome(self, key: Key, outcome: dict[str, Any], emit: Callable[[dict[str, Any]], None]) -> None:
        """Rank 0 ended with ``outcome``: ``emit`` the attempt's, once the other ranks told theirs
        (or RANK_GRACE passed); nothing for an attempt told lost already."""
        self.mark(key, 0, ENDED_AS.get(str(outcome.get("status")), "failed"))
        with self._lock:
            gang = self._gangs.get(key)
            others = self._outcomes.setdefault(key, {})  # kept here: the attempt's release drops it
        if gang is None:
            emit(outcome)
            return

        if outcome.get("port_taken"):  # its peers cannot meet it: run again now, on another port
            self._stop_soon(key)
            self.executor.lose(key, None, f"{PORT_TAKEN}: port {outcome['port_taken']} was taken before "
                                          "rank 0 listened on it; the attempt runs again on another port")
            return

        def tell(_: bool) -> None:
            if not self.executor.is_lost(key):
                emit(merged(outcome, others))

        if outcome.get("status") != "ok":  # a rank 0 that completed lets the others end by themselves
            self._stop_soon(key)
        self.executor.graces.add(lambda: len(others) >= gang.size - 1, RANK_GRACE, tell)

    # -- ending -----------------------------------------------------------------------------
    def verdict(self, key: Key, step: int, verdict: str) -> None:
        """The verdict on ``step`` for every rank beyond 0 (rank 0's is set by the executor)."""
        gang = self._gangs.get(key)
        for rank in range(1, gang.size if gang else 0):
            name = verdict_name(self.executor.topic, key[0], key[1], step, rank)
            Variable(name, client=self.executor.client).set(verdict)

    def cancel_waiting(self, key: Key) -> bool:
        """Drop an attempt that never started; whether it was waiting."""
        with self._lock:
            waiting = self._waiting.pop(key, None) is not None and self.queue.remove(key)
        if waiting:
            self.executor.sink(AttemptDone(key[0], key[1], None, reason="cancelled"))
        return waiting

    def _stop_soon(self, key: Key) -> None:
        threading.Thread(target=self.stop_ranks, args=(key,), daemon=True, name="hpnb-stop-ranks").start()

    def stop_ranks(self, key: Key, let_end: bool = False) -> None:
        """Ask every rank of the attempt to stop (with ``let_end``, once RANK_GRACE seconds passed
        and some still run), and cancel those beyond rank 0 still running RANK_GRACE seconds
        after (rank 0 ends as any trial asked to stop does); any thread but the client's event loop."""
        with self._lock:
            if key not in self._gangs:
                return
            futures = list(self._futures.get(key, []))
            stopping = self._stopping.setdefault(key, threading.Lock())
        with stopping:  # one stop at a time: another's cancel would make a hung rank look done
            self._stop_ranks(key, futures, let_end)

    def _stop_ranks(self, key: Key, futures: list[Future], let_end: bool) -> None:
        if not (let_end and _all_done(futures, RANK_GRACE)):
            with contextlib.suppress(Exception):
                self.executor.stop(*key)
            _all_done(futures, RANK_GRACE)
        hung = [(rank, future) for rank, future in enumerate(futures, start=1) if not future.done()]
        for _, future in hung:
            with contextlib.suppress(Exception):
                future.cancel()
        for rank, future in hung:  # its thread runs on, in a collective or a loop that never reports
            self._write_off(key, rank, str(future.key))

    def _write_off(self, key: Key, rank: int, task_key: str) -> None:
        with self._lock:
            gang = self._gangs.get(key)
            if gang is None or task_key in self._written_off:  # two stops may find it hung
                return
            self._written_off.add(task_key)
        what = self.executor.write_off(task_key, gang.workers[rank])
        log.warning("trial %d: rank %d did not end when its attempt ended: %s", key[0], rank, what)

    def end(self, key: Key) -> None:
        """Rank 0's task ended: the other ranks end too (by themselves first, when rank 0
        completed), and their slots are free again."""
        with self._lock:
            completed = self._states.get(key, ["?"])[0] == "completed"
        self.stop_ranks(key, let_end=completed)
        self._release(key)

    def _release(self, key: Key) -> None:
        with self._lock:
            states, futures = list(self._states.get(key, ())), list(self._futures.get(key, ()))
        for rank, future in enumerate(futures, start=1):  # returned, but its message is not here yet
            if states[rank] not in FINAL_STATES and future.status == "finished":
                with contextlib.suppress(Exception):
                    self.mark(key, rank, ENDED_AS.get(str(future.result(timeout=5).get("status")), "failed"))
        for rank in range(len(states)):  # the ranks ended here, not by themselves
            self.mark(key, rank, "stopped")
        with self._lock:
            gang = self._gangs.pop(key, None)
            self._futures.pop(key, None)
            self._outcomes.pop(key, None)
            self._states.pop(key, None)
            self._stopping.pop(key, None)
            if gang is not None:
                self._busy.subtract(gang.workers)
        if gang is not None:
            self.place()


def _all_done(futures: Sequence[Future], timeout: float) -> bool:
    """Wait until every one of ``futures`` is done (``timeout`` seconds at most); whether they are."""
    done = threading.Event()
    for future in futures:
        future.add_done_callback(lambda _: done.set() if all(f.done() for f in futures) else None)
    return done.wait(timeout) if futures else True


def never_joined(outcomes: dict[int, dict[str, Any]]) -> list[int]:
    """The ranks that ended without joining the process group their peers joined (none when no
    rank joined one: an objective that does not use torch.distributed)."""
    if not any(outcome.get("joined") for outcome in outcomes.values()):
        return []
    return sorted(rank for rank, outcome in outcomes.items() if outcome.get("joined") is False)


def merged(first: dict[str, Any], others: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The attempt's outcome: rank 0's, failed with the first failing rank's traceback when another
    rank failed, with every rank's output in its log (each line of a rank beyond 0 marked with it).

    Example:
        >>> merged({"status": "ok", "error": None, "log": {"stdout": "a\\n"}},
        ...        {1: {"status": "failed", "error": "Traceback ...", "log": {"stdout": "b\\n"}}})["error"]
        'rank 1 failed:\\nTraceback ...'
    """
    outcome = dict(first)
    failed = sorted(rank for rank, other in others.items() if other.get("status") == "failed")
    if failed and first.get("status") != "failed":
        rank = failed[0]
        outcome["status"] = "failed"
        outcome["error"] = f"rank {rank} failed:\n{others[rank].get('error') or ''}"
    absent = never_joined({0: first, **others})
    if outcome.get("status") == "failed" and absent:
        ranks = f"rank{'s' if len(absent) > 1 else ''} {', '.join(map(str, absent))}"
        outcome["error"] = (f"{ranks} never joined the process group (its objective did not call "
                            "torch.distributed.init_process_group), and the others waited for it:\n"
                            f"{outcome.get('error') or ''}")
    log = first.get("log")
    if isinstance(log, dict):
        log = dict(log)
        for rank in sorted(others):
            other = others[rank].get("log") or {}
            for stream in ("stdout", "stderr"):
                lines = [f"[rank {rank}] {line}" for line in str(other.get(stream) or "").splitlines()]
                if lines:
                    log[stream] = str(log.get(stream) or "") + "\n".join(lines) + "\n"
        outcome["log"] = log
    return outcome

