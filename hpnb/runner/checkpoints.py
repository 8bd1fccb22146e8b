"""Where the driver keeps the latest checkpoint of every trial.

Checkpoints arrive pickled with a trial's reports; the driver writes the
latest one of each trial next to the store (``checkpoints/<experiment id>/``),
so that a retry after a worker crash, a resumed search, or a
population-based-training exploit in another process can start from it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class CheckpointFiles:
    """The latest checkpoint of each trial of one experiment, as files.

    Example:
        >>> import tempfile
        >>> files = CheckpointFiles(tempfile.mkdtemp(), experiment_id=1)
        >>> ref = files.write(3, b"state")
        >>> files.read(ref)
        b'state'
    """

    def __init__(self, root: str | os.PathLike[str], experiment_id: int) -> None:
        self.directory = Path(root) / str(int(experiment_id))

    def write(self, trial_id: int, blob: bytes) -> str:
        """Store ``blob`` as trial ``trial_id``'s checkpoint (atomically); returns its reference."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = self.ref(trial_id)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.replace(tmp, self.directory / name)
        return name

    @staticmethod
    def ref(trial_id: int) -> str:
        """The reference of trial ``trial_id``'s checkpoint."""
        return f"trial-{int(trial_id)}.pkl"

    def read(self, ref: str) -> bytes | None:
        """The checkpoint stored under ``ref``, or None if it is gone."""
        if "/" in ref or "\\" in ref or ref.startswith("."):
            raise ValueError(f"not a checkpoint reference: {ref!r}")
        path = self.directory / ref
        return path.read_bytes() if path.exists() else None
