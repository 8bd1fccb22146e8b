"""The driver's side of checkpoints: references only, and which checkpoints stay.

Workers write checkpoints to the store (:mod:`hpnb.runner.checkpoint_store`) and report
their references; the driver records them and, once the experiment store has committed a
newer one, deletes a trial's checkpoints beyond the newest ``keep`` (a driver killed in
between resumes from the checkpoint the store names, which is still there). An exploit
gets the member a copy of the donor's checkpoint made inside the checkpoint store, so the
donor may go on and drop its own. The driver deletes only references it was given for
its own search, never by listing someone else's folder.

Example:
    >>> import tempfile
    >>> from hpnb.runner.checkpoint_store import CheckpointLocation, CheckpointStore
    >>> store = CheckpointStore(CheckpointLocation(tempfile.mkdtemp(), "s-1", keep=1))
    >>> refs = CheckpointRefs(store)
    >>> first, second = store.write_object(0, 1, "a"), store.write_object(0, 2, "b")
    >>> refs.add(0, first, 1); refs.add(0, second, 2); refs.committed(0, second)
    >>> [store.read_object(r) for r, _ in refs.candidates(0)]
    ['b']
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from hpnb.runner.checkpoint_store import CheckpointStore, ref_time

log = logging.getLogger("hpnb")


class CheckpointRefs:
    """Each trial's checkpoint references (oldest first, with their steps) for one search."""

    def __init__(self, store: CheckpointStore,
                 stored: Mapping[int, tuple[str, int | None]] | None = None) -> None:
        """``stored``: each trial's checkpoint the experiment store names (reference, step), on a
        resume; with ``keep`` above 1 the committed ones before it are held again too."""
        self.store = store
        self.keep = max(1, store.location.keep)
        self.refs: dict[int, list[tuple[str, int | None]]] = {
            trial_id: [*self._kept_before(trial_id, ref), (ref, step)]
            for trial_id, (ref, step) in (stored or {}).items()}

    def _kept_before(self, trial_id: int, ref: str) -> list[tuple[str, int | None]]:
        """The committed checkpoints a driver before this one kept beside ``ref`` (up to ``keep``
        - 1, oldest first): a resumed search falls back on them and deletes them in turn. One
        written after ``ref`` was never stored: it is not held, and the end of the run sweeps it."""
        if self.keep == 1:
            return []
        before = [r for r in self.store.refs(trial_id) if ref_time(r) < ref_time(ref)]
        held = []
        for older in before[-(self.keep - 1):]:
            try:
                held.append((older, self.store.manifest(older).get("step")))
            except FileNotFoundError:  # half written, or deleted meanwhile
                continue
        return held

    def add(self, trial_id: int, ref: str, step: int | None) -> None:
        """A new checkpoint of ``trial_id`` (a worker wrote it, or recovery found it stored)."""
        held = self.refs.setdefault(trial_id, [])
        if ref not in (r for r, _ in held):
            held.append((ref, step))

    def latest(self, trial_id: int) -> tuple[str, int | None] | None:
        held = self.refs.get(trial_id)
        return held[-1] if held else None

    def candidates(self, trial_id: int) -> tuple[tuple[str, int | None], ...]:
        """What an attempt of ``trial_id`` may resume from, newest first."""
        return tuple(reversed(self.refs.get(trial_id, ())))

    def committed(self, trial_id: int, ref: str) -> None:
        """The store now names ``ref``: older checkpoints of the trial beyond ``keep`` go."""
        held = self.refs.get(trial_id, [])
        index = next((i for i, (r, _) in enumerate(held) if r == ref), None)
        if index is None:
            return
        drop = held[:max(0, index + 1 - self.keep)]
        self.refs[trial_id] = held[len(drop):]
        for old, _ in drop:
            self.store.delete(old)

    def forget(self, trial_id: int, ref: str) -> None:
        """``ref`` was found missing: it is no longer offered."""
        self.refs[trial_id] = [(r, s) for r, s in self.refs.get(trial_id, []) if r != ref]

    def sweep(self) -> None:
        """At the end of a run: delete what attempts the driver no longer followed left in its
        trials' folders (a checkpoint written after an exploit restarted its member, one half
        written by a worker that died); only this search's folders are looked at."""
        for trial_id, held in self.refs.items():
            known = {ref for ref, _ in held}
            for ref in self.store.refs(trial_id):
                if ref not in known:
                    self.store.delete(ref)

    def copy_for(self, member: int, donor: int) -> tuple[str, int | None] | None:
        """A copy of ``donor``'s latest checkpoint as ``member``'s newest (made in the store,
        never through this process); None when the donor has none that can be copied."""
        latest = self.latest(donor)
        if latest is None:
            return None
        try:
            ref = self.store.copy(latest[0], member)
        except Exception as err:  # gone or unreadable: the exploit does not happen
            log.warning("hpnb: cannot copy the checkpoint of trial %s for trial %s: %s", donor, member, err)
            return None
        self.add(member, ref, latest[1])
        return ref, latest[1]
