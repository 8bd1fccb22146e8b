"""Inputs fetched once: a model or a prepared dataset is made once per search in its folder of
the checkpoint store (or ``llm.cache``), and copied from there once per machine.

Each input is a folder named by its fingerprint (what it was made from: the source's files, sizes
and modification times, or its hub revision), so a changed source is fetched again into a new
folder while a resumed or extended search finds its inputs where it left them. A folder is whole
once its ``FETCHED.json`` exists (written last); one process per machine makes or copies it while
the others wait on a lock (``flock``), so two workers of a machine never both fetch. With a store
on this machine's disk, the store's folder is the machine's copy.

Example:
    >>> import tempfile
    >>> inputs = Inputs(tempfile.mkdtemp())
    >>> folder = inputs.ensure("model-0a1b", "a model", lambda tmp: (tmp / "w.bin").write_bytes(b"1"))
    >>> sorted(p.name for p in folder.iterdir())
    ['FETCHED.json', 'w.bin']
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hpnb.llm.sources import fingerprint

#: the file that makes a fetched folder whole; written last.
DONE = "FETCHED.json"
#: seconds a rank but 0 waits for rank 0 to fetch an input.
WAIT_FOR_PEER = 3600.0


class Inputs:
    """Where the inputs of one search live: ``root`` (a folder or fsspec URL shared by its workers)
    and this machine's copy of them."""

    def __init__(self, root: str) -> None:
        import fsspec
        from fsspec.implementations.local import LocalFileSystem

        self.fs, path = fsspec.core.url_to_fs(os.path.expanduser(root))
        self.root = path.rstrip("/")
        self.local = isinstance(self.fs, LocalFileSystem)
        self.machine = Path(self.root) if self.local else \
            Path(tempfile.gettempdir(), "hpnb-llm", fingerprint(root))

    def ensure(self, name: str, what: str, make: Callable[[Path], Any] | None,
               said: Callable[[dict[str, Any]], None] | None = None) -> Path:
        """This machine's copy of input ``name``, made by ``make(folder)`` when the search has
        none yet, or copied from the shared root when another machine made it. ``said`` hears
        what was done (``{"input", "action", "bytes", "seconds"}``). With ``make`` None (a rank
        but 0 of a trial: rank 0 fetches, and says so), wait until another process made it."""
        folder = self.machine / name
        if make is None:
            self._wait_for(name, folder)
        if (folder / DONE).exists():
            return folder
        self.machine.mkdir(parents=True, exist_ok=True)
        with _machine_lock(self.machine / f".{name}.lock"):
            if (folder / DONE).exists():
                return folder
            started = time.monotonic()
            copied = self._copy_shared(name, folder)
            if not copied:
                assert make is not None  # a waiting rank found the shared copy whole
                self._make(name, what, folder, make)
            record = {"input": name, "what": what, "action": "copied" if copied else "fetched",
                      "bytes": folder_bytes(folder), "seconds": round(time.monotonic() - started, 3)}
            if said is not None:
                said(record)
        return folder

    def _wait_for(self, name: str, folder: Path) -> None:
        deadline = time.monotonic() + WAIT_FOR_PEER
        shared = f"{self.root}/{name}/{DONE}"
        while not (folder / DONE).exists() and (self.local or not self.fs.exists(shared)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} was not fetched by rank 0 within {WAIT_FOR_PEER:.0f} s")
            time.sleep(0.1)

    def _make(self, name: str, what: str, folder: Path, make: Callable[[Path], Any]) -> None:
        staging = Path(tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=self.machine))
        try:
            make(staging)
            (staging / DONE).write_text(json.dumps({"input": name, "what": what, "made": time.time()}))
            shutil.rmtree(folder, ignore_errors=True)  # one a killed process left half made
            os.replace(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if not self.local:  # the marker last: another machine copies it only once it is whole
            remote = f"{self.root}/{name}"
            for path in sorted(folder.rglob("*")):
                if path.is_file() and path.name != DONE:
                    self.fs.put_file(str(path), f"{remote}/{path.relative_to(folder).as_posix()}")
            self.fs.put_file(str(folder / DONE), f"{remote}/{DONE}")

    def _copy_shared(self, name: str, folder: Path) -> bool:
        """Copy a folder another machine made into this machine's copy; False when there is none."""
        if self.local or not self.fs.exists(f"{self.root}/{name}/{DONE}"):
            return False
        staging = Path(tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=self.machine))
        try:
            self.fs.get(f"{self.root}/{name}/", f"{staging}/", recursive=True)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return True


@contextlib.contextmanager
def _machine_lock(path: Path) -> Iterator[None]:
    """One process of this machine at a time (the operating system's lock: dies with its process)."""
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def folder_bytes(folder: Path) -> int:
    """The size of the files in ``folder``."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def copy_source(source: str, target: Path) -> None:
    """Copy every file of a local or fsspec ``source`` (a folder or one file) into ``target``,
    each read once."""
    from hpnb.llm.sources import listing

    fs, path, files = listing(source)
    is_folder = fs.isdir(path)
    for item in files:
        destination = target / item["name"]
        destination.parent.mkdir(parents=True, exist_ok=True)
        inside = f"{path}/{item['name']}" if is_folder else path
        with fs.open(inside, "rb") as src, open(destination, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
