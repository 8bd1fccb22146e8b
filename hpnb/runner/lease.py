"""One driver per search: an exclusive lock file held while a driver runs (a SQLite store; a server
store's lock is on its server: :func:`take_driver_lease`).

The lock is an OS file lock (``flock``) on ``<store dir>/locks/<experiment id>.lock``:
two drivers of one search can never run at once, whether they would live in one
process or in two, and a driver that dies (``kill -9``, a closed laptop) drops
its lock with its process, so the search can be resumed at once.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> lease = DriverLease.take(folder, 1, "host:42")
    >>> DriverLease.take(folder, 1, "host:43")
    Traceback (most recent call last):
    ...
    hpnb.core.errors.HpnbError: search 1 is already driven by host:42
    >>> lease.release()
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hpnb.core.errors import HpnbError

if TYPE_CHECKING:
    from hpnb.core.store import Store

try:
    import fcntl
except ImportError:  # Windows: no flock; one driver per search is then not enforced
    fcntl = None  # type: ignore[assignment]


class Lease(Protocol):
    """What a driver holds on its search while it runs, whichever store it is."""

    def release(self) -> None: ...

    @property
    def held(self) -> bool: ...


class DriverLease:
    """The lock a running driver holds on its search."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def take(cls, store_dir: Path, experiment_id: int, holder: str, label: str | None = None) -> DriverLease:
        """Lock search ``experiment_id`` for a driver described by ``holder`` (``host:pid``).

        Raises:
            HpnbError: another driver holds it (the message names that driver).
        """
        path = Path(store_dir) / "locks" / f"{int(experiment_id)}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                other = _read_holder(fd)
                os.close(fd)
                raise HpnbError(f"search {label or experiment_id} is already driven by "
                                f"{other or 'another driver'}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Let another driver take the search (closing the file drops the lock)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None


def take_driver_lease(store: Store, experiment_id: int, holder: str,
                      label: str | None = None) -> Lease:
    """Lock a search of ``store`` for one driver: a file lock beside a SQLite store, an advisory
    lock on the server of a PostgreSQL store (which holds across machines).

    Raises:
        HpnbError: another driver holds it.
    """
    if store.location.is_server:
        from hpnb.core.store.search_lock import ServerSearchLock

        return ServerSearchLock.take(store, experiment_id, label)
    return DriverLease.take(store.path.parent, experiment_id, holder, label)


def _read_holder(fd: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(fd, 200, 0).decode(errors="replace").strip()
    return ""
