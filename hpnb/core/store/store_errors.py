"""Errors the store raises on purpose."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from hpnb.core.errors import HpnbError, closest


class StoreError(HpnbError):
    """A problem with the experiment store (its file, its schema, or a request to it)."""


class InvalidName(StoreError, ValueError):
    """An experiment name that is empty, too long, or has characters not allowed."""


class NameTaken(StoreError):
    """An experiment of that name exists and overwriting was not asked for."""

    def __init__(self, name: str, path: object) -> None:
        self.name = name
        super().__init__(
            f"an experiment named {name!r} already exists in {path}; resume it to continue it, "
            "or overwrite it (overwrite=True, --overwrite) to start again from scratch"
        )


class UnknownExperiment(StoreError):
    """No experiment of that name in the store; the message suggests a close name."""

    def __init__(self, name: str, known: Iterable[str], path: object) -> None:
        self.name = name
        known = list(known)
        text = f"no experiment named {name!r} in {path}"
        if not known:
            text += " (the store has no experiments yet)"
        else:
            guess = closest(name, known)
            if guess is not None:
                text += f"; did you mean {guess!r}?"
        super().__init__(text)


class UnknownTrial(StoreError):
    """No trial with that id in the experiment."""


class ReadOnlyStore(StoreError):
    """A write was attempted on a store opened with ``readonly=True``."""


class StoreVersionError(StoreError):
    """The store file was written by a newer hpnb, or could not be upgraded."""


class StoreBusy(StoreError):
    """Another process kept the store locked for longer than the retry period."""


class StoreDamaged(StoreError):
    """The store file is not an SQLite database, or some of its pages are corrupt.

    The message names the file, what SQLite found, and the command that moves it (with its
    write-ahead log, if any) aside, so that a new store can start.
    """

    def __init__(self, path: str | Path, reason: object) -> None:
        self.path = Path(path)
        super().__init__(
            f"the store {self.path} is damaged ({reason}): move it aside ({_move_aside(self.path)}) "
            "and start again, or restore a backup"
        )


def _move_aside(path: Path) -> str:
    """The shell command renaming the store file, and its write-ahead log if not empty, to ``*.bak*``.

    A non-empty ``-wal`` left behind would be replayed into a new file of the same name; the
    ``-shm`` index is rebuilt by SQLite and can stay.
    """
    wal = path.with_name(path.name + "-wal")
    files = [path, wal] if wal.exists() and wal.stat().st_size > 0 else [path]
    moves = []
    for old in files:
        new = old.with_name(path.name + ".bak" + old.name[len(path.name) :])
        moves.append(f"mv {shlex.quote(str(old))} {shlex.quote(str(new))}")
    return " && ".join(moves)


class StoreUnreachable(StoreError):
    """The store's server cannot be reached, or refused the connection (the message says why).

    ``reason`` is the why alone ("connection refused"), for a line that names the store otherwise.
    """

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
