"""Where a search's driver runs: the place a search asks for (this process, a process of its own,
a worker of its cluster), who holds a search (``host:pid``), and what a start elsewhere returns.

Example:
    >>> detach_mode(None, "cluster"), detach_mode(True, None)
    ('cluster', 'process')
    >>> driver_id().rpartition(":")[2].isdigit()
    True
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hpnb.core.spec import ExperimentSpec
from hpnb.core.spec.detach import parse_detach
from hpnb.core.store import Store

#: the environment variable that makes every search detached unless told otherwise.
DETACH_SETTING = "HPNB_DETACH"
_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class DetachedDriver:
    """A detached driver just started: where it runs (``process 4242``, ``a worker of
    tcp://10.0.0.5:8786``) and its log file (None on a cluster: the worker's log)."""

    where: str
    log: Path | None = None


#: starts a search's driver elsewhere (:func:`hpnb.driving.detached.detached_starter`): given the
#: store, the search's name and spec, and the moment from which commands are for the new driver,
#: says where it runs.
Starter = Callable[[Store, str, ExperimentSpec, "float | None"], DetachedDriver]


def driver_id() -> str:
    """``host:pid`` of this process, stored so others can tell whether the driver still lives."""
    return f"{socket.gethostname()}:{os.getpid()}"


def detach_by_default() -> bool:
    """Whether searches are detached when the call does not say (``HPNB_DETACH=1``).

    Example:
        >>> import os
        >>> os.environ.pop("HPNB_DETACH", None) and None
        >>> detach_by_default()
        False
    """
    return os.environ.get(DETACH_SETTING, "").strip().lower() in _TRUE


def detach_mode(given: bool | str | None, spec: str | None) -> str | None:
    """Where the driver runs: ``given`` (an argument: True, False, "process", "cluster"), else the
    spec's ``detach:``, else ``HPNB_DETACH``; None for the starting process.

    Example:
        >>> detach_mode("cluster", None), detach_mode(None, "process"), detach_mode(False, "cluster")
        ('cluster', 'process', None)
    """
    if given is not None:
        return parse_detach(given)
    if spec is not None:
        return spec
    return "process" if detach_by_default() else None
