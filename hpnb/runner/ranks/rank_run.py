"""Running one rank of a trial that spans several workers, on its worker.

Each rank first says it started and waits until every rank of its gang has (so a rank whose worker
was slow to take it never makes rank 0 give up in ``init_process_group``); rank 0 chooses a free
port on its host for ``MASTER_PORT``, a new one for every attempt. The objective then runs with the
rank's environment (:func:`~hpnb.runner.ranks.gang.rank_environment`), set for this rank alone and
restored after, and a process group it left initialised is destroyed, so that its peers blocked in
a collective fail at once rather than at torch's timeout, and the worker's next trial can start one.
A collective waits the gang's collective timeout for a peer (:mod:`.torch_collectives`); the
outcome says whether the rank joined a process group, and rank 0's whether its port was taken.

Example:
    >>> run_rank(train, task, channel, topic)  # doctest: +SKIP
    {'status': 'ok', 'metrics': {...}, ...}
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hpnb.runner.ranks.gang import Gang, RankInfo, rank_environment
from hpnb.runner.ranks.torch_collectives import Collectives, torch_collectives
from hpnb.runner.worker.objective import TrialTask, run_trial
from hpnb.runner.worker.reporting import TrialStopped
from hpnb.runner.worker.trial_context import TrialChannel, current

#: seconds every rank of a gang has to start (its worker busy, or gone) before the attempt fails.
JOIN_TIMEOUT = 120.0
#: seconds between two looks at whether the ranks started (and whether the trial was stopped).
JOIN_POLL = 0.25


class RankMissing(RuntimeError):
    """A rank of the gang did not start in time."""


def run_rank(objective: Callable[..., Any], task: TrialTask, channel: TrialChannel, topic: str,
             timeout: float = JOIN_TIMEOUT) -> dict[str, Any]:
    """Run rank ``task.rank`` of ``task.gang`` (see the module's docstring); what :func:`run_trial`
    returns, a failure naming the rank that did not start, or a stop that came meanwhile."""
    assert task.gang is not None
    gang = task.gang

    seen: list[Collectives] = []
    port: list[int] = []

    @functools.wraps(objective)
    def ranked(*args: Any, **kwargs: Any) -> Any:
        info = join(gang, task.rank, channel.should_stop, timeout)
        port.append(info.master_port)
        context = current()
        if context is not None:
            context.rank, context.world_size = info.rank, info.world_size
        with environment(rank_environment(info)), torch_collectives(gang.collective_timeout) as collectives:
            seen.append(collectives)
            try:
                return objective(*args, **kwargs)
            finally:
                collectives.joined = end_process_group() or collectives.joined

    outcome = run_trial(ranked, task, channel)
    outcome["joined"] = bool(seen and seen[0].joined)
    failed = outcome.get("status") == "failed"
    if task.rank == 0 and port and failed and port_taken(outcome.get("error"), port[0]):
        outcome["port_taken"] = port[0]
    return outcome


def port_taken(error: str | None, port: int) -> bool:
    """Whether a failure says that ``port`` was taken when rank 0 came to listen on it.

    Example:
        >>> port_taken("DistNetworkError: ... port: 29500, ... name: EADDRINUSE, message: address "
        ...            "already in use", 29500)
        True
    """
    text = (error or "").lower()
    return str(port) in text and ("eaddrinuse" in text or "address already in use" in text)


def join(gang: Gang, rank: int, should_stop: Callable[[], bool], timeout: float) -> RankInfo:
    """Say that ``rank`` started, learn where rank 0 listens, and wait until every rank started.

    Raises:
        RankMissing: a rank did not start within ``timeout`` seconds (named, with its worker).
        TrialStopped: the trial was stopped meanwhile.
    """
    from distributed import Event, Variable, get_client

    client = get_client()
    Event(f"{gang.rendezvous}-started-{rank}", client=client).set()
    master = Variable(f"{gang.rendezvous}-master", client=client)
    if rank == 0:
        host = gang.hosts()[0]
        master.set(f"{host}:{free_port(host)}")
    deadline = time.monotonic() + timeout
    waiting = list(range(gang.size))
    while waiting:
        started = Event(f"{gang.rendezvous}-started-{waiting[0]}", client=client)
        if started.wait(JOIN_POLL):
            waiting.pop(0)
        elif should_stop():
            raise TrialStopped(f"rank {rank} was asked to stop while its gang gathered")
        elif time.monotonic() > deadline:
            missing = waiting[0]
            raise RankMissing(f"rank {missing} of {gang.size} did not start within {timeout:g} s (its worker "
                              f"{gang.workers[missing]} is busy or gone); the attempt is ended")
    return RankInfo.of(gang, rank, str(master.get(timeout=max(1.0, deadline - time.monotonic()))))


def free_port(host: str) -> int:
    """A port nobody listens on at ``host`` now (chosen anew for every attempt: never a fixed one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """Within the block, ``variables`` are set in this process's environment; restored after."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def end_process_group() -> bool:
    """Destroy the default process group an objective left initialised (torch only if imported);
    whether there was one."""
    if "torch.distributed" not in sys.modules:
        return False
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return False
    with contextlib.suppress(Exception):  # a peer gone already: its group is broken, and ends here anyway
        dist.destroy_process_group()
    return True
