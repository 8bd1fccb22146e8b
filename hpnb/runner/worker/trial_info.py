"""What a running trial knows of itself (``hpnb.current_trial()``) and its artifacts (``hpnb.artifact``).

A trial's ``dir`` is a folder of its own that survives retries: in the checkpoint store
when that is a folder (shared by every attempt), else a local folder whose files are
uploaded to the store when the attempt ends and fetched when the next one asks for it.
Artifacts are files (or figures) stored beside the trial's checkpoints, listed by
``Search.artifacts(trial_id)`` and ``hpnb show NAME --trial N``.

Example:
    >>> import hpnb
    >>> hpnb.current_trial() is None  # outside a search
    True
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from hpnb.runner.checkpoint_store import check_artifact_name
from hpnb.runner.worker import checkpointing
from hpnb.runner.worker.trial_context import current

if TYPE_CHECKING:
    from hpnb.runner.worker.trial_context import TrialContext


@dataclass(frozen=True)
class TrialInfo:
    """The running trial.

    Attributes:
        search: the search's name.
        trial_id: the trial's id.
        params: its parameters (after a population-based-training exploit: the explored ones).
        attempt: 0 for its first run, then 1, 2, ... for retries, resumes and exploits.
        resume_step: the step of the checkpoint this attempt resumes from (None: from the start).
        dir: a folder of its own that survives retries (TensorBoard logs, plots, predictions).
        rank: this process's rank in a trial that spans several workers (0 otherwise).
        world_size: how many ranks the trial has (1: one process runs it).
    """

    search: str
    trial_id: int
    params: dict[str, Any]
    attempt: int
    resume_step: int | None
    dir: Path
    rank: int = 0
    world_size: int = 1


def current_trial() -> TrialInfo | None:
    """The trial running in this thread, or None outside a search.

    Example:
        >>> import hpnb
        >>> trial = hpnb.current_trial()
        >>> log_dir = trial.dir / "tb" if trial else "runs/plain"
    """
    context = current()
    if context is None:
        return None
    found = checkpointing.resolve(context)
    step = found[1].get("step") if found else None
    return TrialInfo(context.experiment, context.trial_id, dict(context.params), context.attempt, step,
                     trial_dir(context), rank=context.rank, world_size=context.world_size)


def trial_dir(context: TrialContext) -> Path:
    """The trial's own folder, made (and fetched from a remote store) on first use in an attempt."""
    if context.trial_dir is not None:
        return context.trial_dir
    store = checkpointing.store_of(context)
    remote = store.trial_dir(context.trial_id)
    if store.local:
        folder = Path(remote)
    else:
        folder = Path(tempfile.gettempdir(), "hpnb-trials", store.location.key, f"trial-{context.trial_id}")
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if store.fs.exists(remote):
                store.fs.get(f"{remote}/", f"{folder}/", recursive=True)
    folder.mkdir(parents=True, exist_ok=True)
    context.trial_dir = folder
    return folder


def upload_trial_dir(context: TrialContext) -> None:
    """At the end of an attempt: the trial's local folder goes to a remote store (nothing to do
    when the store is a folder, or the trial never asked for it)."""
    if context.trial_dir is None:
        return
    store = checkpointing.store_of(context)
    if not store.local and any(context.trial_dir.iterdir()):
        try:
            store.fs.put(f"{context.trial_dir}/", store.trial_dir(context.trial_id), recursive=True)
        except OSError as err:
            context.events.append(["trial_dir_failed", {"trial": context.trial_id, "error": str(err)}])


def artifact(path_or_figure: Any, name: str | None = None) -> str | None:
    """Record a file, or a matplotlib or plotly figure (saved as an image), as an artifact of the
    running trial, stored beside its checkpoints; its name (None outside a search: nothing is kept).

    Args:
        path_or_figure: a file in the trial's ``dir``, the working folder or the temp folder,
            or a figure.
        name: the artifact's name (parts joined by ``/``); by default the file's name.

    Raises:
        ValueError: a name with ``..`` or other characters, or a file outside the trial's reach.

    Example:
        >>> import hpnb
        >>> hpnb.artifact("predictions.csv") is None  # outside a search
        True
    """
    context = current()
    if name is not None:
        check_artifact_name(name)
    if context is None:
        return None
    store = checkpointing.store_of(context)
    if hasattr(path_or_figure, "savefig") or hasattr(path_or_figure, "write_image"):
        with tempfile.TemporaryDirectory(prefix="hpnb-figure-") as scratch:
            saved = _save_figure(path_or_figure, Path(scratch), name)
            chosen = saved.name if name is None else str(PurePosixPath(name).with_suffix(saved.suffix))
            store.put_artifact(context.trial_id, chosen, saved)
            return chosen
    local = _reachable_file(path_or_figure, trial_dir(context))
    chosen = name or check_artifact_name(local.name)
    store.put_artifact(context.trial_id, chosen, local)
    return chosen


def _save_figure(figure: Any, folder: Path, name: str | None) -> Path:
    """``figure`` as a PNG in ``folder`` (a plotly figure as HTML when it cannot make images)."""
    stem = Path(name).stem if name else "figure"
    if hasattr(figure, "savefig"):
        target = folder / f"{stem}.png"
        figure.savefig(target)
        return target
    target = folder / f"{stem}.png"
    try:
        figure.write_image(target)
    except (ValueError, ImportError, RuntimeError):  # no image engine (kaleido): the interactive page
        target = folder / f"{stem}.html"
        figure.write_html(target)
    return target


def _reachable_file(path: Any, own: Path) -> Path:
    """``path`` resolved, when it is a file inside the trial's folder, the working folder or the
    temp folder; ValueError otherwise."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"hpnb.artifact takes a file path or a matplotlib/plotly figure (got a "
                        f"{type(path).__name__})")
    if ".." in Path(path).parts:
        raise ValueError(f"artifact path {str(path)!r} is not allowed: it must not contain '..'")
    resolved = Path(path).resolve()
    roots = [own.resolve(), Path(tempfile.gettempdir()).resolve()]
    if Path.cwd().resolve() != Path("/"):  # a worker started in / would reach everything
        roots.append(Path.cwd().resolve())
    if not any(resolved.is_relative_to(root) for root in roots):
        raise ValueError(f"artifact path {str(path)!r} is outside the trial's reach: give a file in the "
                         f"trial's dir ({own}), the working folder or the temp folder")
    if not resolved.is_file():
        raise ValueError(f"artifact path {str(path)!r} is not a file")
    return resolved
