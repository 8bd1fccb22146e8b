"""The checkpoint store on a real folder and on a real S3-compatible server (moto's)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.runner.checkpoint_refs import CheckpointRefs
from hpnb.runner.checkpoint_store import (
    MANIFEST,
    CheckpointLocation,
    CheckpointStore,
    CheckpointStoreError,
    check_artifact_name,
)


@pytest.fixture(params=["folder", "s3"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "folder":
        return str(tmp_path / "checkpoints")
    return f"{request.getfixturevalue('s3_url')}/{tmp_path.name}"


def open_store(url: str, key: str = "search-1-1000", keep: int = 1) -> CheckpointStore:
    store = CheckpointStore(CheckpointLocation(url, key, keep))
    store.probe()
    return store


class Unpicklable:
    def __reduce__(self) -> tuple:
        raise RuntimeError("cannot pickle this")


def test_an_object_and_a_folder_round_trip(url, tmp_path):
    store = open_store(url)
    ref = store.write_object(0, step=3, obj={"w": list(range(1000))})
    assert store.read_object(ref) == {"w": list(range(1000))}
    assert store.manifest(ref)["step"] == 3
    staging = store.staging_folder(0)
    (staging / "sub").mkdir()
    (staging / "weights.bin").write_bytes(b"\x00" * 10_000)
    (staging / "sub" / "config.json").write_text('{"layers": 2}')
    folder_ref = store.write_folder(0, 4, staging)
    local = store.folder(folder_ref, tmp_path / "cache")
    assert (local / "weights.bin").read_bytes() == b"\x00" * 10_000
    assert (local / "sub" / "config.json").read_text() == '{"layers": 2}'
    assert store.manifest(folder_ref)["kind"] == "dir"


def test_a_checkpoint_whose_write_fails_midway_is_never_read_and_leaves_nothing(url):
    store = open_store(url)
    with pytest.raises(RuntimeError, match="cannot pickle"):
        store.write_object(1, step=2, obj=[b"x" * 2_000_000, Unpicklable()])  # the bytes go out first
    assert store.refs(1) == []


def test_a_checkpoint_without_its_manifest_does_not_exist(url):
    store = open_store(url)
    ref = store.write_object(0, step=1, obj="state")
    store.fs.rm_file(store.path(f"{ref}/{MANIFEST}"))  # as if the writer died before committing
    with pytest.raises(FileNotFoundError):
        store.manifest(ref)


def test_an_exploit_copy_lives_on_after_the_donor_drops_its_checkpoint(url):
    store = open_store(url)
    refs = CheckpointRefs(store)
    donor = store.write_object(0, step=5, obj={"theta": [1.0, 2.0]})
    refs.add(0, donor, 5)
    copied = refs.copy_for(1, 0)
    assert copied is not None and copied[1] == 5
    newer = store.write_object(0, step=6, obj={"theta": [3.0, 4.0]})
    refs.add(0, newer, 6)
    refs.committed(0, newer)
    with pytest.raises(FileNotFoundError):
        store.manifest(donor)
    assert store.read_object(copied[0]) == {"theta": [1.0, 2.0]}
    assert refs.candidates(1) == (copied,)


def write_steps(store: CheckpointStore, refs: CheckpointRefs, trial_id: int, steps: int,
                commit: bool) -> list[str]:
    """Checkpoints of steps 0 to ``steps`` - 1, each given to ``refs`` (and committed, if asked)."""
    written = []
    for step in range(steps):
        written.append(store.write_object(trial_id, step=step, obj=step))
        refs.add(trial_id, written[-1], step)
        if commit:
            refs.committed(trial_id, written[-1])
    return written


def test_keep_holds_the_newest_checkpoints_and_deletes_the_rest_once_committed(url):
    store = open_store(url, keep=2)
    refs = CheckpointRefs(store)
    written = write_steps(store, refs, 2, 4, commit=False)
    refs.committed(2, written[2])  # the newest is not committed yet: it and the two before stay
    assert [r for r, _ in refs.candidates(2)] == [written[3], written[2], written[1]]
    assert store.refs(2) == written[1:]


def test_keep_carries_over_a_resume_and_a_checkpoint_never_stored_is_not_held(url):
    store = open_store(url, keep=2)
    written = write_steps(store, CheckpointRefs(store), 0, 3, commit=True)
    never_stored = store.write_object(0, step=3, obj=3)  # the driver died before its store had it
    resumed = CheckpointRefs(store, {0: (written[2], 2)})
    assert resumed.candidates(0) == ((written[2], 2), (written[1], 1))
    newer = store.write_object(0, step=3, obj="resumed")
    resumed.add(0, newer, 3)
    resumed.committed(0, newer)
    resumed.sweep()
    assert store.refs(0) == [written[2], newer]
    assert never_stored not in store.refs(0)


def test_two_searches_in_one_store_never_delete_each_others_checkpoints(url):
    first, second = open_store(url, key="mlp-1-1000"), open_store(url, key="mlp-1-2000")
    mine, theirs = CheckpointRefs(first), CheckpointRefs(second)
    kept = second.write_object(0, step=1, obj="theirs")
    theirs.add(0, kept, 1)
    for step in range(3):
        ref = first.write_object(0, step=step, obj=step)
        mine.add(0, ref, step)
        mine.committed(0, ref)
    assert second.read_object(kept) == "theirs"
    assert len(first.refs(0)) == 1


def test_a_store_that_cannot_be_written_is_one_clear_error(tmp_path, s3_url):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(CheckpointStoreError, match=r"checkpoints\.store: cannot write to"):
        open_store(str(blocker / "checkpoints"))
    with pytest.raises(CheckpointStoreError, match="s3://no-such-bucket-hpnb"):
        open_store("s3://no-such-bucket-hpnb/prefix")


def test_the_spec_field_is_checked():
    spec = parse_spec({"metric": "loss", "parameters": {"x": [1]},
                       "checkpoints": {"store": "s3://models/hpnb", "keep": 2}})
    assert (spec.checkpoints.store, spec.checkpoints.keep) == ("s3://models/hpnb", 2)
    assert parse_spec(spec.to_dict()) == spec
    for bad, message in [({"store": "relative/folder"}, "checkpoints.store: must be an absolute folder"),
                         ({"keep": 0}, "checkpoints.keep: must be at least 1"),
                         ({"stor": "/x"}, "did you mean 'store'")]:
        with pytest.raises(SpecError, match=message):
            parse_spec({"metric": "loss", "parameters": {"x": [1]}, "checkpoints": bad})


def test_artifact_names_stay_inside_the_trials_artifacts(url, tmp_path):
    store = open_store(url)
    for bad in ("../secret", "a/../../b", "/etc/passwd", "", "a\\b", "plots/.."):
        with pytest.raises(ValueError, match="is not allowed"):
            check_artifact_name(bad)
    plot = tmp_path / "loss.png"
    plot.write_bytes(b"\x89PNG")
    store.put_artifact(3, "plots/loss.png", plot)
    assert [(a["name"], a["size"]) for a in store.artifacts(3)] == [("plots/loss.png", 4)]
    assert pickle.loads(pickle.dumps(store.location)) == store.location


def test_the_end_of_a_run_sweeps_what_followed_attempts_did_not_send(url):
    store = open_store(url)
    refs = CheckpointRefs(store)
    kept = store.write_object(0, step=2, obj="kept")
    refs.add(0, kept, 2)
    stray = store.write_object(0, step=3, obj="from an attempt an exploit replaced")
    half = store.new_ref(0)
    store.put_probe(f"{half}/state.pkl")  # a worker died before the manifest
    refs.sweep()
    assert store.refs(0) == [kept]
    assert stray != kept
