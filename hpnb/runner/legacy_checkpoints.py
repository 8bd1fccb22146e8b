"""Checkpoints kept by hpnb before the checkpoint store, read on resume.

Earlier versions kept each trial's latest checkpoint as one pickled object in
``checkpoints/<experiment id>/trial-<id>-<n>.pkl`` beside the experiment store, and the
store named the file (``trial-<id>-<n>.pkl``). On resume, the file an unfinished trial
names is copied once into the checkpoint store as an object checkpoint (the file holds
the object pickled, as a checkpoint's ``state.pkl`` does), and the trial resumes from
it. A file that is gone or cannot be copied: the trial starts over, as it did then. The
old files are left where they are (the store still names them until the trial's next
checkpoint); the folder can be deleted once the resumed search has ended.

Example:
    >>> legacy_name(3, "trial-3-1700000000000000000.pkl"), legacy_name(3, "trial-4-1.pkl")
    (True, False)
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from hpnb.runner.checkpoint_store import CheckpointStore
from hpnb.runner.driven_trial import DrivenTrial

log = logging.getLogger("hpnb")

#: a checkpoint file's name then: its trial and its number (none in the earliest versions).
_NAME = re.compile(r"trial-(\d+)(?:-(\d+))?\.pkl")


def legacy_name(trial_id: int, name: str | None) -> bool:
    """Whether ``name`` is a checkpoint file name of trial ``trial_id`` in the earlier layout."""
    match = _NAME.fullmatch(name or "")
    return match is not None and int(match[1]) == int(trial_id)


def legacy_folder(store_path: Path, experiment_id: int) -> Path:
    """Where the earlier layout kept an experiment's checkpoint files."""
    return Path(store_path).parent / "checkpoints" / str(int(experiment_id))


def adopt(store: CheckpointStore, folder: Path, trial: DrivenTrial, name: str,
          step: int | None) -> str | None:
    """Copy ``trial``'s checkpoint file ``name`` from ``folder`` into ``store`` and make it the
    one the trial resumes from; its reference, or None (logged) when it cannot be read."""
    if not legacy_name(trial.trial_id, name):
        return None
    try:
        ref = store.write_pickled(trial.trial_id, step, folder / name)
    except Exception as err:  # gone, unreadable, or the store cannot be written: start over
        log.warning("hpnb: trial %s starts over: its checkpoint %s cannot be read (%s)", trial.trial_id,
                    folder / name, err)
        return None
    trial.checkpoint, trial.checkpoint_step = ref, step
    return ref
