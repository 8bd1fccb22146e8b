"""What a rank's objective meets of ``torch.distributed``, set for the rank while it runs.

Its collectives (``init_process_group`` included) wait at most the gang's collective timeout for a
peer, not torch's 30 minutes, when the objective does not choose one itself; and the rank learns
whether the objective joined a process group, so that an attempt whose rank 0 timed out waiting
names the rank that never came. Nothing here imports torch unless it is installed.

Example:
    >>> with torch_collectives(60.0) as seen:  # doctest: +SKIP
    ...     train()
    >>> seen.joined  # doctest: +SKIP
    True
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from types import ModuleType
from typing import Any


@dataclass
class Collectives:
    """What a rank's objective did with ``torch.distributed``."""

    #: it called ``init_process_group`` (or left a process group initialised).
    joined: bool = False


@contextlib.contextmanager
def torch_collectives(timeout: float, master: tuple[str, int] | None = None) -> Iterator[Collectives]:
    """Within the block, torch's default collective timeout is ``timeout`` seconds and a call to
    ``init_process_group`` is seen; both restored after (nothing when torch is not installed).
    ``master`` (a rank beyond 0: rank 0's host and port): its ``init_process_group`` from the
    environment first waits until rank 0 listens there, as torch's own client, refused, would
    back off for a random fraction of a second or more."""
    seen = Collectives()
    modules = _torch_distributed()
    if modules is None:
        yield seen
        return
    package, c10d = modules
    saved = {name: getattr(c10d, name) for name in ("default_pg_timeout", "default_pg_nccl_timeout")}
    original = c10d.init_process_group
    setattr(c10d, "default_pg_timeout", timedelta(seconds=timeout))  # noqa: B010 (torch has no setter)
    if saved["default_pg_nccl_timeout"] is not None:  # None: a build without NCCL
        setattr(c10d, "default_pg_nccl_timeout", timedelta(seconds=timeout))  # noqa: B010
    for module in (package, c10d):
        setattr(module, "init_process_group", _seen_by(seen, original, master, timeout))  # noqa: B010
    try:
        yield seen
    finally:
        for module in (package, c10d):
            setattr(module, "init_process_group", original)  # noqa: B010
        _forget_failed_groups(package, c10d)
        for name, value in saved.items():
            setattr(c10d, name, value)


def _forget_failed_groups(package: ModuleType, c10d: ModuleType) -> None:
    """With no process group left, number the next one from 0 again: torch counts a group whose
    ``init_process_group`` failed (a port taken, a peer that never came) and resets the count only
    when a group is destroyed, so this worker's next trial would name its group apart from its
    peers' and wait for them forever."""
    world = getattr(c10d, "_world", None)
    if world is not None and not package.is_initialized() and hasattr(world, "group_count"):
        world.group_count = 0


def _seen_by(seen: Collectives, init: Callable[..., Any], master: tuple[str, int] | None,
             timeout: float) -> Callable[..., Any]:
    @functools.wraps(init)
    def init_process_group(*args: Any, **kwargs: Any) -> Any:
        seen.joined = True
        from_environment = kwargs.get("init_method") in (None, "env://") and kwargs.get("store") is None
        if master is not None and from_environment and len(args) < 2:
            wait_until_listening(*master, timeout)
        return init(*args, **kwargs)

    return init_process_group


def wait_until_listening(host: str, port: int, timeout: float, pause: float = 0.005) -> bool:
    """Wait until something accepts connections at ``host:port`` (at most ``timeout`` seconds);
    whether it did.

    Example:
        >>> wait_until_listening("127.0.0.1", 9, timeout=0.05)  # nothing listens on port 9
        False
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, port), timeout=1.0).close()
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(pause)


def _torch_distributed() -> tuple[ModuleType, ModuleType] | None:
    """``torch.distributed`` and its ``distributed_c10d``, where torch is installed and has them."""
    if importlib.util.find_spec("torch") is None:
        return None
    import torch.distributed as package

    if not package.is_available():
        return None
    from torch.distributed import distributed_c10d

    return package, distributed_c10d
