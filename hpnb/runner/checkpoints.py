"""Where the driver keeps the latest checkpoint of every trial.

Checkpoints arrive pickled with a trial's reports; the driver writes the
latest one of each trial next to the store (``checkpoints/<experiment id>/``),
so that a retry after a worker crash, a resumed search, or a
population-based-training exploit in another process can start from it.

Each checkpoint is a file of its own (``trial-<id>-<n>.pkl``, ``n`` increasing), never
written over: the store names the file of the step it holds, and that file stays until
the store has committed a newer one (:meth:`CheckpointFiles.prune`). A driver killed
between writing a checkpoint and storing its step thus resumes from the checkpoint of
the step the store has, not from a later one whose report it never stored.

The folder is the user's to delete or break while a search runs: a missing
folder is made again on the next write, and a checkpoint that cannot be written
or read is reported, never raised (a search does not fail for want of a file).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

#: a checkpoint file's name: its trial and its number (none: one written before numbers).
_NAME = re.compile(r"trial-(\d+)(?:-(\d+))?\.pkl")


class CheckpointFiles:
    """The latest checkpoint of each trial of one experiment, as files.

    Attributes:
        directory: the folder the files are kept in.
        last_error: why the latest :meth:`write` failed (a sentence naming the trial, the
            folder and the OS error), or None when it succeeded.

    Example:
        >>> import tempfile
        >>> files = CheckpointFiles(tempfile.mkdtemp(), experiment_id=1)
        >>> ref = files.write(3, b"state")
        >>> files.read(ref), files.last_error, files.latest(3) == ref
        (b'state', None, True)
    """

    def __init__(self, root: str | os.PathLike[str], experiment_id: int) -> None:
        self.directory = Path(root) / str(int(experiment_id))
        self.last_error: str | None = None
        self._last_number = 0

    def write(self, trial_id: int, blob: bytes) -> str | None:
        """Store ``blob`` as trial ``trial_id``'s checkpoint (atomically); returns its reference.

        The folder is made if it is missing, and made again (once) if it vanishes while
        writing. When the file cannot be written (a file where the folder should be, no
        permission, a full disk) nothing is raised: returns None and sets :attr:`last_error`.
        """
        # numbers grow with time, so a resumed driver's files come after those it found
        self._last_number = max(time.time_ns(), self._last_number + 1)
        name = f"trial-{int(trial_id)}-{self._last_number}.pkl"
        try:
            try:
                self._put(name, blob)
            except FileNotFoundError:  # the folder was removed meanwhile
                self._put(name, blob)
        except OSError as err:
            # the reason first: the paths of a rename would push it out of a shortened message
            self.last_error = (f"cannot keep the checkpoint of trial {trial_id} in {self.directory}: "
                               f"{err.strerror or err}")
            return None
        self.last_error = None
        return name

    def _put(self, name: str, blob: bytes) -> None:
        """Write ``blob`` to a temporary file in the folder (made if missing), then rename it."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(tmp, self.directory / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _files(self, trial_id: int) -> list[tuple[int, str]]:
        """(number, name) of trial ``trial_id``'s checkpoint files, oldest first."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        found = [(m, name) for name in names if (m := _NAME.fullmatch(name)) and int(m[1]) == trial_id]
        return sorted((int(m[2] or -1), name) for m, name in found)

    def latest(self, trial_id: int) -> str | None:
        """The reference of trial ``trial_id``'s newest checkpoint file, if any."""
        files = self._files(trial_id)
        return files[-1][1] if files else None

    def prune(self, trial_id: int, kept: str) -> None:
        """Remove trial ``trial_id``'s checkpoint files older than ``kept`` (the one the store
        has just committed); errors are ignored (the folder is the user's)."""
        match = _NAME.fullmatch(kept)
        if match is None:
            return
        number = int(match[2] or -1)
        for older, name in self._files(trial_id):
            if older < number:
                with contextlib.suppress(OSError):
                    os.unlink(self.directory / name)

    def read(self, ref: str) -> bytes | None:
        """The checkpoint stored under ``ref``, or None if it is gone or cannot be read."""
        if "/" in ref or "\\" in ref or ref.startswith("."):
            raise ValueError(f"not a checkpoint reference: {ref!r}")
        try:
            return (self.directory / ref).read_bytes()
        except OSError:
            return None
