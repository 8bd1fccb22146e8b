"""A search in TensorBoard: one run folder per trial, scalar curves and the HParams summaries.

``tracking: {tensorboard: DIR}`` writes, in ``DIR``:

- an event file at the top with the HParams experiment config (parameters and objectives);
- ``trial-<id>/`` per trial (the name made from its id only): its session start (parameter
  values), one scalar per reported metric at its step (the report's number when it gave no
  step), and its session end once it ended;
- ``.hpnb-tensorboard.json``: what was written of which search, so that a resumed search
  continues its trials' folders without writing a point twice.

Only the ``tensorboard`` package's protos and record writer are used: neither TensorFlow nor
torch is needed. Point TensorBoard at ``DIR``: ``tensorboard --logdir DIR``.

Example:
    >>> tracker = TensorBoardTracker("/tmp/tb")      # doctest: +SKIP
    >>> tracker.take(update); tracker.push()          # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.record_writer import RecordWriter

from hpnb.core.spec import parse_spec
from hpnb.core.store import TrialRecord
from hpnb.tracking.feed import Unsent, Update
from hpnb.tracking.mlflow_runs import search_key
from hpnb.tracking.mlflow_trials import ENDED, metric_points
from hpnb.tracking.tensorboard_hparams import HParams

STATE_FILE = ".hpnb-tensorboard.json"
_counter = itertools.count()


def trial_folder(trial_id: int) -> str:
    """The run folder of a trial (from its id: nothing a user typed reaches the path)."""
    return f"trial-{int(trial_id):04d}"


class _EventFile:
    """One event file, appended to and flushed after each write."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        # names sort by time: a resumed search's file is read after the first run's
        name = f"events.out.tfevents.{time.time():012.0f}.hpnb-{os.getpid()}-{next(_counter):06d}"
        self._file = open(folder / name, "ab")  # noqa: SIM115 (closed by close())
        self._writer = RecordWriter(self._file)
        self.write(Event(wall_time=time.time(), file_version="brain.Event:2"))

    def write(self, event: Event) -> None:
        self._writer.write(event.SerializeToString())

    def summary(self, summary: Summary, step: int, wall_time: float) -> None:
        self.write(Event(wall_time=wall_time, step=step, summary=summary))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class TensorBoardTracker(Unsent):
    """Writes one search into the TensorBoard folder ``folder`` (see the module's docstring)."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.label = f"TensorBoard folder {self.folder}"
        self._state: dict[str, Any] | None = None
        self._hparams: HParams | None = None
        self._all: dict[str, Any] = {}
        #: the event file of each trial under way (closed when it ends)
        self._files: dict[int, _EventFile] = {}

    def push(self) -> None:
        update = self.latest
        if update is None:
            return
        state = self._open(update)
        for trial in update.trials:
            if self.wants_run(trial):
                self._write_trial(state, trial, update.more)
        for events in self._files.values():
            events.flush()
        self._save()

    def close(self, update: Update) -> None:
        """Close the files of trials left unfinished (a resume writes new ones)."""
        for events in self._files.values():
            events.close()
        self._files.clear()

    def unsent(self) -> str | None:
        count = sum(len(rows) for rows in self.pending.values())
        return f"{count} reports could not be written to {self.label}" if count else None

    # -- the folder ---------------------------------------------------------------------------
    def _open(self, update: Update) -> dict[str, Any]:
        if self._state is not None:
            return self._state
        record = update.record
        saved = self._load()
        key = search_key(record)
        state = saved.get(key)
        if state is None:
            top = _EventFile(self.folder)
            top.summary(self._hparams_of().experiment(record.created), 0, time.time())
            top.close()
            state = {"sent": {}, "started": [], "ended": []}
        self._all = {**saved, key: state}
        self._state = state
        return state

    def _hparams_of(self) -> HParams:
        if self._hparams is None:
            assert self.latest is not None
            spec = parse_spec(self.latest.record.spec)
            self._hparams = HParams(spec.space, spec.objectives)
        return self._hparams

    def _write_trial(self, state: dict[str, Any], trial: TrialRecord, more: bool) -> None:
        trial_id = trial.trial_id
        sent = int(state["sent"].get(str(trial_id), 0))
        rows = [row for row in self.pending.pop(trial_id, []) if row.seq > sent]
        starting = trial_id not in state["started"]
        ending = trial.state in ENDED and trial_id not in state["ended"] and not more
        if not (rows or starting or ending):
            return
        events = self._files.get(trial_id)
        if events is None:
            events = self._files[trial_id] = _EventFile(self.folder / trial_folder(trial_id))
        if starting:
            started = trial.start or time.time()
            events.summary(self._hparams_of().session_start(trial.params, started, ""), 0, started)
            state["started"].append(trial_id)
        for row in rows:
            step = row.step if row.step is not None else row.seq
            values = [Summary.Value(tag=name, simple_value=value)
                      for name, value in metric_points(row.metrics).items()]
            events.summary(Summary(value=values), step, row.time)
            state["sent"][str(trial_id)] = row.seq
        if ending:
            ended = trial.end or time.time()
            events.summary(HParams.session_end(trial.state, ended), trial.last_step or 0, ended)
            state["ended"].append(trial_id)
            self._files.pop(trial_id).close()

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads((self.folder / STATE_FILE).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self) -> None:
        path = self.folder / STATE_FILE
        tmp = path.with_name(f"{STATE_FILE}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(self._all))
        os.replace(tmp, path)
