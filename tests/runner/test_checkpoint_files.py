"""CheckpointFiles on the real filesystem while the user removes or breaks its folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hpnb.runner.checkpoints import CheckpointFiles


@pytest.fixture
def files(tmp_path: Path) -> CheckpointFiles:
    return CheckpointFiles(tmp_path / "checkpoints", experiment_id=7)


def leftovers(files: CheckpointFiles) -> list[str]:
    """Temporary files left in the folder."""
    return [p.name for p in files.directory.glob(".tmp-*")] if files.directory.is_dir() else []


def test_write_then_read(files: CheckpointFiles) -> None:
    ref = files.write(3, b"state")
    assert ref is not None and ref.startswith("trial-3-") and ref.endswith(".pkl")
    assert files.read(ref) == b"state" and files.last_error is None and files.latest(3) == ref
    assert leftovers(files) == []


def test_a_newer_checkpoint_never_replaces_the_one_the_store_names(files: CheckpointFiles) -> None:
    """A driver killed between writing a checkpoint and storing its step resumes from the step the
    store has: the file the store names still holds that step until the store names a newer one."""
    stored = files.write(3, b"step 1")
    newer = files.write(3, b"step 2")  # written; the driver dies before the store commits it
    assert stored is not None and newer is not None and stored != newer
    assert files.read(stored) == b"step 1" and files.latest(3) == newer
    files.prune(3, newer)  # the store committed the newer one: the older file goes
    assert files.read(stored) is None and files.read(newer) == b"step 2"
    other = files.write(4, b"another trial")
    files.prune(3, newer)
    assert other is not None and files.read(other) == b"another trial"


def test_a_store_written_before_numbered_files_reads_its_checkpoint(files: CheckpointFiles) -> None:
    files.directory.mkdir(parents=True)
    (files.directory / "trial-5.pkl").write_bytes(b"old")
    assert files.read("trial-5.pkl") == b"old" and files.latest(5) == "trial-5.pkl"
    newer = files.write(5, b"new")
    assert files.latest(5) == newer
    files.prune(5, newer or "")
    assert files.read("trial-5.pkl") is None


def test_a_folder_removed_before_a_write_is_made_again(files: CheckpointFiles) -> None:
    first = files.write(1, b"one")
    shutil.rmtree(files.directory.parent)
    assert first is not None and files.read(first) is None
    ref = files.write(1, b"again")
    assert ref is not None and files.read(ref) == b"again" and files.last_error is None


def test_a_folder_removed_between_the_temporary_file_and_its_rename_is_made_again(
    files: CheckpointFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace
    removals = []

    def remove_then_replace(src: str, dst: str | os.PathLike[str]) -> None:
        if not removals:
            removals.append(src)
            shutil.rmtree(files.directory)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", remove_then_replace)
    ref = files.write(2, b"state")
    assert removals, "the folder was not removed mid-write"
    assert ref is not None and ref.startswith("trial-2-") and files.read(ref) == b"state"
    assert files.last_error is None
    assert leftovers(files) == []


def test_a_folder_that_keeps_vanishing_is_a_reported_failure(
    files: CheckpointFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace

    def remove_then_replace(src: str, dst: str | os.PathLike[str]) -> None:
        shutil.rmtree(files.directory)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", remove_then_replace)
    assert files.write(2, b"state") is None
    assert files.last_error is not None and "trial 2" in files.last_error


@pytest.mark.parametrize("where", ["experiment folder", "checkpoints folder"])
def test_a_file_where_the_folder_should_be_is_reported_not_raised(files: CheckpointFiles, where: str) -> None:
    assert files.write(1, b"one") is not None
    blocked = files.directory if where == "experiment folder" else files.directory.parent
    shutil.rmtree(blocked)
    blocked.write_text("not a folder")
    assert files.write(1, b"two") is None
    error = files.last_error
    assert error is not None
    assert error.startswith(f"cannot keep the checkpoint of trial 1 in {files.directory}: ")
    assert "\n" not in error
    assert files.latest(1) is None
    blocked.unlink()  # the user mends it: the next write succeeds and clears the error
    assert files.write(1, b"three") == files.latest(1) and files.last_error is None


def test_an_unreadable_checkpoint_reads_as_none(files: CheckpointFiles) -> None:
    files.directory.mkdir(parents=True)
    (files.directory / "trial-4-1.pkl").mkdir()  # a folder where a checkpoint file should be
    assert files.read("trial-4-1.pkl") is None
    ref = files.write(4, b"state")  # a new checkpoint is a new file: the folder is not in its way
    assert ref is not None and files.read(ref) == b"state" and leftovers(files) == []


@pytest.mark.parametrize("ref", ["../trial-1.pkl", ".tmp-x", "a\\b"])
def test_a_reference_outside_the_folder_is_refused(files: CheckpointFiles, ref: str) -> None:
    with pytest.raises(ValueError, match="not a checkpoint reference"):
        files.read(ref)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_folder_is_a_reported_failure(files: CheckpointFiles) -> None:
    files.directory.mkdir(parents=True)
    files.directory.chmod(0o500)
    try:
        assert files.write(1, b"state") is None
        assert files.last_error is not None and "Permission denied" in files.last_error
    finally:
        files.directory.chmod(0o700)
