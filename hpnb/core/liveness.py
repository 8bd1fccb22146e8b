"""Whether a search's driver lives, as any process on any host can tell from the store.

A driver writes a heartbeat every :data:`HEARTBEAT_INTERVAL` seconds. Read on another host, a
search stored as RUNNING whose heartbeat is older than :data:`STALE_AFTER` seconds has lost its
driver. On the driver's own host the process itself says more, and sooner: a driver whose process
is gone (killed, a kernel restarted) is dead at once, and a live one whose loop is slow (a loaded
machine) is given :data:`LOCAL_PATIENCE` seconds before it is taken for dead.

Example:
    >>> from hpnb.core.store import ExperimentRecord
    >>> record = ExperimentRecord(1, "demo", {}, None, "RUNNING", 10, None, "loss", "min", "random",
    ...                           0.0, 5.0, None, False, None, None, "elsewhere:1", heartbeat=5.0)
    >>> driver_alive(record, now=6.0), driver_alive(record, now=60.0)
    (True, False)
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from hpnb.core.store.records import ExperimentRecord, TrialRecord
from hpnb.core.trial import ExperimentState, TrialState

#: seconds between two heartbeats of a running driver.
HEARTBEAT_INTERVAL = 2.0
#: a RUNNING search whose last heartbeat is older than this is INTERRUPTED (read on another host).
STALE_AFTER = 3 * HEARTBEAT_INTERVAL
#: the same for a driver whose process is seen alive on this host.
LOCAL_PATIENCE = 120.0


def heartbeat_age(record: ExperimentRecord, now: float) -> float:
    """Seconds since the driver of ``record`` last said it was alive (a store written before
    heartbeats existed: since the record last changed)."""
    return now - (record.heartbeat if record.heartbeat is not None else record.updated)


def driver_alive(record: ExperimentRecord, now: float) -> bool:
    """Whether the driver of ``record`` lives (see the module's rule)."""
    age = heartbeat_age(record, now)
    local = local_process_alive(record.driver)
    if local is None:
        return age <= STALE_AFTER
    return local and age <= LOCAL_PATIENCE


def local_process_alive(driver: str | None) -> bool | None:
    """Whether the process of ``driver`` (``host:pid``) lives, when it runs on this host; None when
    it runs elsewhere (or ``driver`` names no process).

    Example:
        >>> local_process_alive(f"{socket.gethostname()}:{os.getpid()}")
        True
        >>> local_process_alive("elsewhere:1") is None
        True
    """
    host, _, pid_text = (driver or "").rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return None
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` ended and only waits for its parent to collect it (Linux; False elsewhere)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] in (["Z"], ["X"])


def experiment_state(record: ExperimentRecord, now: float) -> ExperimentState:
    """The state of ``record`` at ``now`` (epoch seconds), judging liveness by heartbeat."""
    state = ExperimentState(record.state)
    if state is ExperimentState.RUNNING and not driver_alive(record, now):
        return ExperimentState.INTERRUPTED
    return state


def trial_state(trial: TrialRecord, search: ExperimentState) -> str:
    """The state to show for ``trial``: RUNNING and PENDING trials of a search whose driver
    died are INTERRUPTED (a resume runs them again)."""
    if search is ExperimentState.INTERRUPTED and TrialState(trial.state).is_under_way:
        return ExperimentState.INTERRUPTED.value
    return trial.state
