"""``hpnb export NAME --artifacts DIR``: each trial's artifacts copied into ``DIR/trial-<id>/``.

The exported table gets an ``artifacts`` column: the copied files of each row's trial, as paths
relative to ``DIR`` joined by ``;`` (artifact names never hold a ``;``). The files come from the
search's checkpoint store (a folder or an fsspec URL), read straight to disk.

Example:
    >>> from hpnb.cli import main
    >>> main(["export", "mlp-lr", "-o", "trials.csv", "--artifacts", "exported"])  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import HpnbError
from hpnb.core.store import ExperimentRecord

if TYPE_CHECKING:
    import pandas as pd

    from hpnb.runner.checkpoint_store import CheckpointStore

#: the column the exported table lists each trial's copied artifacts in.
COLUMN = "artifacts"


def copy_artifacts(store_path: Path, record: ExperimentRecord, trial_ids: Iterable[int],
                   target: Path) -> dict[int, list[str]]:
    """Copy the artifacts of ``trial_ids`` into ``target/trial-<id>/``; per trial, the copied
    files relative to ``target``. HpnbError naming the store or the file when it cannot be done."""
    from hpnb.runner.checkpoint_store import CheckpointStore, check_artifact_name, search_location

    location = search_location(store_path, record.name, record.id, record.created, record.spec)
    try:
        store = CheckpointStore(location)
    except (OSError, ValueError, ImportError) as err:
        raise HpnbError(f"--artifacts: cannot open the checkpoint store {location.url!r}: {err}") from err
    copied: dict[int, list[str]] = {}
    for trial_id in sorted(set(trial_ids)):
        for artifact in _listed(store, trial_id):
            relative = f"trial-{int(trial_id)}/{check_artifact_name(artifact['name'])}"
            local = target / relative
            try:
                local.parent.mkdir(parents=True, exist_ok=True)
                store.fs.get_file(artifact["path"], os.fspath(local))
            except Exception as err:  # any backend's error: say which file and why
                raise HpnbError(f"--artifacts: cannot copy {artifact['path']} to {local}: "
                                f"{getattr(err, 'strerror', None) or err}") from err
            copied.setdefault(trial_id, []).append(relative)
    return copied


def _listed(store: CheckpointStore, trial_id: int) -> list[dict[str, Any]]:
    try:
        return store.artifacts(trial_id)
    except Exception as err:  # credentials, endpoint, network: one error naming the store
        raise HpnbError(f"--artifacts: cannot list the artifacts of trial {trial_id} in "
                        f"{store.location.url!r}: {type(err).__name__}: {err}") from err


def with_artifacts(frame: pd.DataFrame, copied: dict[int, list[str]]) -> pd.DataFrame:
    """``frame`` with the ``artifacts`` column: each row's trial's copied files, ``;``-joined."""
    return frame.assign(**{COLUMN: [";".join(copied.get(int(t), [])) for t in frame["trial_id"]]})
