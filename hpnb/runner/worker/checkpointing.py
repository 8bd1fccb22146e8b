"""The worker writes and reads its trial's checkpoints in the checkpoint store itself.

Only a reference travels to the driver (in the report's row), never the bytes. A
checkpoint that cannot be written leaves the trial's step as reported: the row carries
``{"error": why}`` instead of a reference, the driver records it, and a later attempt
resumes from the checkpoint before it. A checkpoint that has vanished when an attempt
loads it is skipped for the one before it (recorded as ``checkpoint_missing``).

Example:
    >>> import hpnb
    >>> with hpnb.checkpoint_dir(step=1) as folder:  # outside a search: a throwaway folder
    ...     _ = (folder / "weights.txt").write_text("0.5")
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore
from hpnb.runner.worker.trial_context import current

if TYPE_CHECKING:
    from hpnb.runner.worker.trial_context import TrialContext

#: the checkpoint stores this worker process has opened, by location.
_stores: dict[CheckpointLocation, CheckpointStore] = {}


def store_of(context: TrialContext) -> CheckpointStore:
    """The store of ``context``'s search (a folder in the temp dir when the task names none)."""
    location = context.location or CheckpointLocation(
        os.path.join(tempfile.gettempdir(), "hpnb-checkpoints"), f"{context.experiment}-unstored")
    store = _stores.get(location)
    if store is None:
        store = _stores[location] = CheckpointStore(location)
    return store


def save(context: TrialContext, step: int | None, checkpoint: Any) -> str | dict[str, str]:
    """Write ``checkpoint`` (a picklable object, or the path of a folder) as the trial's next
    checkpoint; its reference, or ``{"error": why}`` when it could not be written."""
    store = store_of(context)
    try:
        try:
            return _write(store, context.trial_id, step, checkpoint)
        except FileNotFoundError:  # its folder was removed meanwhile: made again, once
            return _write(store, context.trial_id, step, checkpoint)
    except (OSError, ValueError) as err:  # a full disk, no permission, a store gone: the trial goes on
        return failure(context, store, step, err)


def _write(store: CheckpointStore, trial_id: int, step: int | None, checkpoint: Any) -> str:
    if isinstance(checkpoint, os.PathLike) and Path(checkpoint).is_dir():
        staging = store.staging_folder(trial_id)
        shutil.rmtree(staging)
        shutil.copytree(checkpoint, staging)
        return store.write_folder(trial_id, step, staging)
    return store.write_object(trial_id, step, checkpoint)


def resolve(context: TrialContext) -> tuple[str, dict[str, Any]] | None:
    """The newest checkpoint this attempt may resume from that still exists, and its manifest;
    the ones found missing on the way are recorded."""
    if context.resolved is not None:
        return context.resolved or None
    store = store_of(context)
    for ref, step in context.resume_from:
        try:
            context.resolved = (ref, store.manifest(ref))
            break
        except (FileNotFoundError, ValueError) as err:
            context.events.append(["checkpoint_missing", {"trial": context.trial_id, "step": step,
                                                          "error": str(err)}])
    else:
        context.resolved = ()
    if context.resolved:
        context.last_step = context.resolved[1].get("step")
    else:
        context.last_step = None if context.resume_from else context.last_step
    return context.resolved or None


def load(context: TrialContext) -> Any:
    """The object of the checkpoint to resume from, or the local path of a folder checkpoint."""
    found = resolve(context)
    if found is None:
        return None
    ref, manifest = found
    store = store_of(context)
    if manifest["kind"] == "dir":
        cache = Path(tempfile.gettempdir()) / "hpnb-cache" / store.location.key / f"trial-{context.trial_id}"
        return store.folder(ref, cache)
    return store.read_object(ref)


@contextlib.contextmanager
def checkpoint_dir(step: int | None = None) -> Iterator[Path]:
    """A new folder to save a checkpoint in; on leaving the block it becomes the trial's
    checkpoint (sent with its next :func:`hpnb.report`, or at the end of the attempt).

    Args:
        step: the step the checkpoint belongs to (that of the report it goes with).

    Example:
        >>> import hpnb
        >>> with hpnb.checkpoint_dir(step=3) as folder:  # doctest: +SKIP
        ...     model.save(folder / "model.keras")
        >>> hpnb.report(step=3, val_loss=0.2)  # doctest: +SKIP
    """
    context = current()
    if context is None:
        with tempfile.TemporaryDirectory(prefix="hpnb-checkpoint-") as scratch:
            yield Path(scratch)
        return
    store = store_of(context)
    staging = store.staging_folder(context.trial_id)
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        context.pending_checkpoint = (step, store.write_folder(context.trial_id, step, staging))
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        context.pending_checkpoint = (step, failure(context, store, step, err))


def failure(context: TrialContext, store: CheckpointStore, step: int | None,
            err: Exception) -> dict[str, str]:
    """What a row carries for a checkpoint that could not be written: the same words for the same
    cause (the driver records it again only when it changes), so no step or file name in it."""
    reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    return {"error": f"cannot keep the checkpoint of trial {context.trial_id} in {store.location.url}: "
                     f"{type(err).__name__}: {reason}"}
