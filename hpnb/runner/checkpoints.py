"""Where the driver keeps the latest checkpoint of every trial.

Checkpoints arrive pickled with a trial's reports; the driver writes the
latest one of each trial next to the store (``checkpoints/<experiment id>/``),
so that a retry after a worker crash, a resumed search, or a
population-based-training exploit in another process can start from it.

The folder is the user's to delete or break while a search runs: a missing
folder is made again on the next write, and a checkpoint that cannot be written
or read is reported, never raised (a search does not fail for want of a file).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
        >>> files.read(ref), files.last_error
        (b'state', None)
    """

    def __init__(self, root: str | os.PathLike[str], experiment_id: int) -> None:
        self.directory = Path(root) / str(int(experiment_id))
        self.last_error: str | None = None

    def write(self, trial_id: int, blob: bytes) -> str | None:
        """Store ``blob`` as trial ``trial_id``'s checkpoint (atomically); returns its reference.

        The folder is made if it is missing, and made again (once) if it vanishes while
        writing. When the file cannot be written (a file where the folder should be, no
        permission, a full disk) nothing is raised: returns None and sets :attr:`last_error`.
        """
        name = self.ref(trial_id)
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

    @staticmethod
    def ref(trial_id: int) -> str:
        """The reference of trial ``trial_id``'s checkpoint."""
        return f"trial-{int(trial_id)}.pkl"

    def read(self, ref: str) -> bytes | None:
        """The checkpoint stored under ``ref``, or None if it is gone or cannot be read."""
        if "/" in ref or "\\" in ref or ref.startswith("."):
            raise ValueError(f"not a checkpoint reference: {ref!r}")
        try:
            return (self.directory / ref).read_bytes()
        except OSError:
            return None
