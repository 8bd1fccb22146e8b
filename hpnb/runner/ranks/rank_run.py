"""Running one rank of a trial that spans several workers, on its worker.

The ranks of an attempt start together on workers whose slots were free (the driver places them
whole, :mod:`hpnb.runner.gangs`), and rank 0 listens on the port the driver found free on its host
for the attempt, so a rank needs no round trip to the scheduler before its objective runs. The
objective runs with the rank's environment (:func:`~hpnb.runner.ranks.gang.rank_environment`), set
for this rank alone and restored after, and a process group it left initialised is destroyed, so
that its peers blocked in a collective fail at once rather than at torch's timeout, and the
worker's next trial can start one. A collective waits the gang's collective timeout for a peer
(:mod:`.torch_collectives`); the outcome says whether the rank joined a process group, and rank
0's whether its port was taken (the attempt then runs again on another port).

Example:
    >>> run_rank(train, task, channel)  # doctest: +SKIP
    {'status': 'ok', 'metrics': {...}, 'joined': True, ...}
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import os
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hpnb.runner.ranks.gang import RankInfo, rank_environment, worker_host
from hpnb.runner.ranks.torch_collectives import Collectives, torch_collectives
from hpnb.runner.worker.objective import TrialTask, run_trial
from hpnb.runner.worker.trial_context import TrialChannel, current


def run_rank(objective: Callable[..., Any], task: TrialTask, channel: TrialChannel) -> dict[str, Any]:
    """Run rank ``task.rank`` of ``task.gang`` (see the module's docstring): what :func:`run_trial`
    returns, with ``joined`` (and rank 0's ``port_taken``)."""
    assert task.gang is not None
    gang = task.gang
    info = RankInfo.of(gang, task.rank)
    seen: list[Collectives] = []

    @functools.wraps(objective)
    def ranked(*args: Any, **kwargs: Any) -> Any:
        context = current()
        if context is not None:
            context.rank, context.world_size = info.rank, info.world_size
        master = (info.master_addr, info.master_port) if info.rank else None
        settings = {name: value for name, value in gang.settings if name not in os.environ}
        with environment({**settings, **rank_environment(info)}), \
                torch_collectives(gang.collective_timeout, master) as collectives:
            seen.append(collectives)
            try:
                return objective(*args, **kwargs)
            finally:
                collectives.joined = end_process_group() or collectives.joined

    outcome = run_trial(ranked, task, channel)
    outcome["joined"] = bool(seen and seen[0].joined)
    failed = outcome.get("status") == "failed"
    if task.rank == 0 and failed and port_taken(outcome.get("error"), info.master_port):
        outcome["port_taken"] = info.master_port
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


def free_port_here(dask_worker: Any) -> str:
    """Run on rank 0's worker (``Client.run``): ``host:port``, a port nobody listens on at the
    worker's host now (chosen anew for every attempt: never a fixed one)."""
    host = worker_host(dask_worker.address)
    return f"{host}:{free_port(host)}"


def is_this_machine(host: str) -> bool:
    """Whether ``host`` is an address of this machine's loopback (a local cluster's workers).

    Example:
        >>> is_this_machine("127.0.0.1"), is_this_machine("::1"), is_this_machine("10.1.2.3")
        (True, True, False)
    """
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def free_port(host: str) -> int:
    """A port nobody listens on at ``host`` now."""
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
