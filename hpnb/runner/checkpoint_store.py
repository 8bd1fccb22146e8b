"""Where trials keep their checkpoints and artifacts: a folder or any fsspec URL.

Workers write here themselves; the driver only ever handles references (short relative
paths), copies checkpoints for population-based-training exploits inside the store, and
deletes the ones no longer needed. The layout, under the store's root::

    <search key>/trial-<id>/ckpt-<time>-<token>/   a checkpoint: its files, then MANIFEST.json
    <search key>/trial-<id>/artifacts/<name>        the trial's artifacts
    <search key>/trial-<id>/dir/                    the trial's own folder (local stores)

A checkpoint exists once its manifest exists: the manifest is written last, in one
atomic step (a rename on a local disk, one PUT on an object store), so a checkpoint
half written is never read. The search key holds the experiment's id and creation
time, so two drivers sharing a store never touch each other's checkpoints.

Example:
    >>> import tempfile
    >>> store = CheckpointStore(CheckpointLocation(tempfile.mkdtemp(), "s-1"))
    >>> ref = store.write_object(3, step=2, obj={"w": [1, 2]})
    >>> store.read_object(ref), store.manifest(ref)["step"]
    ({'w': [1, 2]}, 2)
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hpnb.core.errors import HpnbError

#: the file a checkpoint's manifest is kept in; written last.
MANIFEST = "MANIFEST.json"
#: the file a picklable checkpoint is kept in.
OBJECT_FILE = "state.pkl"
#: a checkpoint reference: ``<search key>/trial-<id>/ckpt-<time>-<token>``.
_REF = re.compile(r"[A-Za-z0-9._-]+/trial-(\d+)/ckpt-\d+-[0-9a-f]+")
_KEY = re.compile(r"[A-Za-z0-9._-]+")


class CheckpointStoreError(HpnbError, OSError):
    """The checkpoint store cannot be reached or written."""


@dataclass(frozen=True)
class CheckpointLocation:
    """A search's place in a checkpoint store: the store's ``url`` and the search's ``key``.

    Attributes:
        url: a local folder or an fsspec URL (``s3://bucket/prefix``); workers must reach it.
        key: the search's folder in it (see :func:`search_key`).
        keep: how many checkpoints of each trial are kept (the newest).
    """

    url: str
    key: str
    keep: int = 1


def search_key(name: str, experiment_id: int, created: float) -> str:
    """The folder of one search in a store: unique to this experiment of this hpnb store.

    Example:
        >>> search_key("mlp", 3, 1700000000.25)
        'mlp-3-1700000000250'
    """
    safe = name if _KEY.fullmatch(name) else "search"
    return f"{safe}-{int(experiment_id)}-{int(created * 1000)}"


def location_for(url: str | None, keep: int, store_path: Path, name: str, experiment_id: int,
                 created: float) -> CheckpointLocation:
    """Where one search keeps its checkpoints: ``url`` (``~`` expanded), by default the folder
    ``checkpoints`` beside the experiment store at ``store_path``.

    Example:
        >>> location_for(None, 1, Path("/h/hpnb.sqlite"), "mlp", 3, 1.0)
        CheckpointLocation(url='/h/checkpoints', key='mlp-3-1000', keep=1)
    """
    if url is None:
        url = str(Path(store_path).parent / "checkpoints")
    elif url.startswith("~"):
        url = os.path.expanduser(url)
    return CheckpointLocation(url, search_key(name, experiment_id, created), keep)


def search_location(store_path: Path, name: str, experiment_id: int, created: float,
                    spec: dict[str, Any]) -> CheckpointLocation:
    """The checkpoint location of a stored search, from its spec (as stored: a dict)."""
    section = spec.get("checkpoints") or {}
    return location_for(section.get("store"), int(section.get("keep", 1)), store_path, name, experiment_id,
                        created)


def check_artifact_name(name: str) -> str:
    """``name`` when it names an artifact inside a trial's artifacts (plain parts joined by
    ``/``); ValueError naming it and what is allowed otherwise.

    Example:
        >>> check_artifact_name("plots/loss.png")
        'plots/loss.png'
    """
    parts = name.split("/") if isinstance(name, str) else []
    bad = [p for p in parts if not _KEY.fullmatch(p) or p in (".", "..") or p.startswith(".tmp-")]
    if not parts or bad or len(name) > 200:
        raise ValueError(f"artifact name {name!r} is not allowed: use letters, digits, '.', '_' and '-' in "
                         "parts joined by '/' (no '..', no leading '/', at most 200 characters)")
    return name


def check_ref(ref: str) -> int:
    """The trial id of checkpoint reference ``ref``; ValueError for anything else (no path
    sent by a worker or read from the store reaches the file system unchecked)."""
    match = _REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None:
        raise ValueError(f"not a checkpoint reference: {ref!r}")
    return int(match[1])


def ref_time(ref: str) -> int:
    """When checkpoint reference ``ref`` was made (nanoseconds): references sort by it.

    Example:
        >>> ref_time("mlp-3-1000/trial-0/ckpt-1700000000000000000-0a1b2c3d")
        1700000000000000000
    """
    return int(ref.rsplit("/", 1)[-1].split("-")[1])


class CheckpointStore:
    """Reads, writes, copies and deletes checkpoints of one search (see the module's layout)."""

    def __init__(self, location: CheckpointLocation) -> None:
        # fsspec only here: ``import hpnb`` (every trial, ``hpnb check``) does not pay for it
        import fsspec
        from fsspec.implementations.local import LocalFileSystem

        self.location = location
        self.fs, root = fsspec.core.url_to_fs(location.url)
        self.root = root.rstrip("/")
        self.local = isinstance(self.fs, LocalFileSystem)

    # -- paths ------------------------------------------------------------------------------
    def path(self, relative: str) -> str:
        return f"{self.root}/{relative}"

    def trial_folder(self, trial_id: int) -> str:
        return f"{self.location.key}/trial-{int(trial_id)}"

    def new_ref(self, trial_id: int) -> str:
        return f"{self.trial_folder(trial_id)}/ckpt-{time.time_ns()}-{secrets.token_hex(4)}"

    # -- writing ----------------------------------------------------------------------------
    def probe(self) -> None:
        """Write and delete a small file; CheckpointStoreError naming the URL when it fails."""
        probe = f".hpnb-probe-{secrets.token_hex(8)}"  # beside the searches' folders: makes none
        try:
            self.put_probe(probe)
            self.fs.rm_file(self.path(probe))
        except Exception as err:  # any backend's error: say which store and why
            raise unwritable(self.location, err) from err

    def put_probe(self, relative: str) -> None:
        """Write a small file at ``relative`` (a path under the store's root)."""
        self._put_small(self.path(relative), b"hpnb")

    def delete_probe(self, relative: str) -> None:
        with contextlib.suppress(Exception):
            self.fs.rm_file(self.path(relative))

    def put_search_file(self, name: str, data: bytes) -> None:
        """Keep a file of the whole search beside its trials' folders (``name``: a plain file name).

        Example:
            >>> import tempfile
            >>> store = CheckpointStore(CheckpointLocation(tempfile.mkdtemp(), "s-1"))
            >>> store.put_search_file("objective.pkl", b"x"); store.search_file("objective.pkl")
            b'x'
        """
        self._put_small(self.path(f"{self.location.key}/{check_artifact_name(name)}"), data)

    def search_file(self, name: str) -> bytes:
        """A file kept with :meth:`put_search_file` (FileNotFoundError when there is none)."""
        data: bytes = self.fs.cat_file(self.path(f"{self.location.key}/{check_artifact_name(name)}"))
        return data

    def write_object(self, trial_id: int, step: int | None, obj: Any) -> str:
        """Pickle ``obj`` straight into the store as a new checkpoint; its reference."""
        def write(ref: str) -> None:
            self._makedirs(self.path(ref))
            with self.fs.open(self.path(f"{ref}/{OBJECT_FILE}"), "wb") as handle:
                pickle.dump(obj, handle, protocol=pickle.HIGHEST_PROTOCOL)
        return self._new_checkpoint(trial_id, "object", step, write)

    def write_pickled(self, trial_id: int, step: int | None, local: Path) -> str:
        """A new object checkpoint from the local file ``local``, which holds an object pickled
        (a checkpoint of the earlier layout); its reference."""
        def write(ref: str) -> None:
            self._makedirs(self.path(ref))
            self.fs.put_file(str(local), self.path(f"{ref}/{OBJECT_FILE}"))
        return self._new_checkpoint(trial_id, "object", step, write)

    def write_folder(self, trial_id: int, step: int | None, folder: Path) -> str:
        """Upload the files of the local ``folder`` as a new checkpoint; its reference."""
        def write(ref: str) -> None:
            if self.local:  # staged in the store (see staging_folder): renamed, no byte moves
                shutil.move(str(folder), self.path(ref))
            else:
                self.fs.put(f"{folder}/", self.path(ref), recursive=True)
        return self._new_checkpoint(trial_id, "dir", step, write)

    def _new_checkpoint(self, trial_id: int, kind: str, step: int | None, write: Callable[[str], Any]) -> str:
        """A new checkpoint's reference, once ``write(ref)`` has written its files and its manifest
        is written; whatever was written is deleted when either fails."""
        ref = self.new_ref(trial_id)
        try:
            write(ref)
            self.commit(ref, kind, step)
        except BaseException:
            self.delete(ref)
            raise
        return ref

    def commit(self, ref: str, kind: str, step: int | None) -> None:
        """Write ``ref``'s manifest (last, atomically): from now on the checkpoint exists."""
        files = {}
        base = self.path(ref)
        for path, info in self.fs.find(base, detail=True).items():
            files[path[len(base) + 1:]] = int(info.get("size") or 0)
        manifest = {"kind": kind, "step": step, "files": files, "time": time.time()}
        self._put_small(f"{base}/{MANIFEST}", json.dumps(manifest).encode())

    def staging_folder(self, trial_id: int) -> Path:
        """A new empty local folder to write a folder checkpoint in (in the store when it is
        local, so committing it moves no bytes)."""
        if self.local:
            parent = Path(self.path(self.trial_folder(trial_id)))
            parent.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=".staging-", dir=parent))
        return Path(tempfile.mkdtemp(prefix=f"hpnb-staging-{int(trial_id)}-"))

    def copy(self, ref: str, trial_id: int) -> str:
        """A copy of checkpoint ``ref`` as trial ``trial_id``'s, made inside the store (hard links
        on a local disk, server-side copies on an object store); its reference."""
        manifest = self.manifest(ref)
        new = self.new_ref(trial_id)
        try:
            self._makedirs(self.path(new))
            for name in manifest["files"]:
                if name == MANIFEST:
                    continue
                source, target = self.path(f"{ref}/{name}"), self.path(f"{new}/{name}")
                if self.local:
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    _link_or_copy(source, target)
                else:
                    self.fs.copy(source, target)
            self.commit(new, manifest["kind"], manifest["step"])
        except BaseException:
            self.delete(new)
            raise
        return new

    def delete(self, ref: str) -> None:
        """Remove checkpoint ``ref`` (its manifest first: never a half-deleted checkpoint); errors
        are ignored (the store is the user's)."""
        base = self.path(ref)
        with contextlib.suppress(Exception):
            self.fs.rm_file(f"{base}/{MANIFEST}")
        with contextlib.suppress(Exception):
            self.fs.rm(base, recursive=True)

    # -- reading ----------------------------------------------------------------------------
    def manifest(self, ref: str) -> dict[str, Any]:
        """The manifest of a committed checkpoint; FileNotFoundError when it is not (any more)."""
        check_ref(ref)
        try:
            data = json.loads(self.fs.cat_file(self.path(f"{ref}/{MANIFEST}")))
        except FileNotFoundError:
            raise
        except Exception as err:
            raise FileNotFoundError(f"checkpoint {ref} cannot be read: {err}") from err
        if not isinstance(data, dict) or data.get("kind") not in ("object", "dir"):
            raise FileNotFoundError(f"checkpoint {ref} has a broken manifest")
        return data

    def read_object(self, ref: str) -> Any:
        with self.fs.open(self.path(f"{ref}/{OBJECT_FILE}"), "rb") as handle:
            return pickle.load(handle)

    def folder(self, ref: str, cache: Path) -> Path:
        """The local folder of folder checkpoint ``ref``: itself on a local store, else a copy
        fetched into ``cache`` (kept while it is the one asked for)."""
        if self.local:
            return Path(self.path(ref))
        target = cache / ref.rsplit("/", 1)[-1]
        if not (target / MANIFEST).exists():
            if cache.exists():
                shutil.rmtree(cache, ignore_errors=True)  # an older checkpoint's copy
            staging = cache.with_name(cache.name + ".part")
            shutil.rmtree(staging, ignore_errors=True)
            self.fs.get(f"{self.path(ref)}/", f"{staging}/", recursive=True)
            cache.mkdir(parents=True, exist_ok=True)
            os.replace(staging, target)
        return target

    def refs(self, trial_id: int) -> list[str]:
        """The references of trial ``trial_id``'s folders that look like checkpoints, oldest first
        (committed or not)."""
        folder = self.trial_folder(trial_id)
        try:
            names = [p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(self.path(folder), detail=False)]
        except (FileNotFoundError, OSError):
            return []
        return sorted((f"{folder}/{n}" for n in names if n.startswith("ckpt-")), key=ref_time)

    # -- artifacts and the trial's folder --------------------------------------------------
    def artifact_path(self, trial_id: int, name: str) -> str:
        return self.path(f"{self.trial_folder(trial_id)}/artifacts/{check_artifact_name(name)}")

    def put_artifact(self, trial_id: int, name: str, local: Path) -> str:
        """Store the local file ``local`` as artifact ``name`` of the trial (replacing one of that
        name in one step); its path in the store."""
        target = self.artifact_path(trial_id, name)
        if self.local:
            _replace_atomically(target, lambda tmp: shutil.copyfile(local, tmp))
        else:
            self.fs.put_file(str(local), target)
        return target

    def artifacts(self, trial_id: int) -> list[dict[str, Any]]:
        """The trial's artifacts: ``{"name", "size", "path"}`` each, by name."""
        base = self.path(f"{self.trial_folder(trial_id)}/artifacts")
        try:
            found = self.fs.find(base, detail=True)
        except (FileNotFoundError, OSError):
            return []
        listed = []
        for path, info in found.items():
            name = path[len(base) + 1:]
            if name and not any(part.startswith(".tmp-") for part in name.split("/")):
                listed.append({"name": name, "size": int(info.get("size") or 0), "path": path})
        return sorted(listed, key=lambda a: a["name"])

    def trial_dir(self, trial_id: int) -> str:
        """The trial's own folder in the store."""
        return self.path(f"{self.trial_folder(trial_id)}/dir")

    # -- helpers ----------------------------------------------------------------------------
    def _makedirs(self, path: str) -> None:
        if self.local:
            os.makedirs(path, exist_ok=True)

    def _put_small(self, path: str, data: bytes) -> None:
        """Write a small file in one atomic step."""
        if self.local:
            _replace_atomically(path, lambda tmp: Path(tmp).write_bytes(data))
        else:
            self.fs.pipe_file(path, data)


def probe_store(location: CheckpointLocation) -> None:
    """Write and delete a small file in ``location``'s store (as :meth:`CheckpointStore.probe`): a
    folder of this machine's is probed without loading fsspec (a notebook cell checks it before it
    returns).

    Raises:
        CheckpointStoreError: the store cannot be written, naming it and why.

    Example:
        >>> import tempfile
        >>> probe_store(CheckpointLocation(tempfile.mkdtemp(), "s-1"))
    """
    if "://" in location.url:
        CheckpointStore(location).probe()
        return
    probe = os.path.join(os.path.expanduser(location.url), f".hpnb-probe-{secrets.token_hex(8)}")
    try:
        _replace_atomically(probe, lambda tmp: Path(tmp).write_bytes(b"hpnb"))
        os.unlink(probe)
    except Exception as err:
        raise unwritable(location, err) from err


def unwritable(location: CheckpointLocation, err: BaseException) -> CheckpointStoreError:
    """The error for a store that cannot be written: which store and why."""
    return CheckpointStoreError(
        f"checkpoints.store: cannot write to {location.url!r} ({type(err).__name__}: {err}); "
        "give a folder or an fsspec URL (s3://bucket/prefix) that this process and every "
        "worker can write")


def _replace_atomically(path: str, write: Callable[[str], Any]) -> None:
    """Make the local file ``path`` by ``write``-ing a temporary file beside it, then renaming it."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _link_or_copy(source: str, target: str) -> None:
    """A hard link (the files of a committed checkpoint never change), a copy across disks."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
