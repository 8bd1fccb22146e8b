"""The store's side of what trials printed: one row per trial, its latest attempt's output."""

from __future__ import annotations

import time

from hpnb.core.store import codec
from hpnb.core.store.base import StoreBase
from hpnb.core.store.dialect import Connection
from hpnb.core.store.store_errors import StoreError
from hpnb.core.trial_output import TrialOutput

_UPSERT = (
    "INSERT INTO trial_logs (experiment_id, trial_id, attempt, stdout, stderr, stdout_bytes, stderr_bytes,"
    " worker, peak_memory, note, truncated, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (experiment_id, trial_id) DO UPDATE SET attempt = excluded.attempt,"
    " stdout = excluded.stdout, stderr = excluded.stderr, stdout_bytes = excluded.stdout_bytes,"
    " stderr_bytes = excluded.stderr_bytes, worker = excluded.worker, peak_memory = excluded.peak_memory,"
    " note = excluded.note, truncated = excluded.truncated, updated = excluded.updated"
    " WHERE excluded.attempt >= trial_logs.attempt"
)
_SELECT = (
    "SELECT attempt, stdout, stderr, stdout_bytes, stderr_bytes, worker, peak_memory, note, truncated"
    " FROM trial_logs"
    " WHERE experiment_id = ? AND trial_id = ?"
)


class TrialLogStore(StoreBase):
    """Trial output methods of :class:`~hpnb.core.store.Store`."""

    def set_trial_output(self, experiment_id: int, trial_id: int, output: TrialOutput) -> None:
        """Keep ``output`` as the trial's log, unless a later attempt's output is kept already.

        Text is cut to the limits of :mod:`hpnb.core.trial_output` again here: the store never
        trusts what it is handed for size.
        """
        clean = TrialOutput.from_message(output.to_message())
        values = (
            experiment_id,
            codec.count(trial_id, "trial_id", 0),
            codec.count(clean.attempt, "attempt", 0),
            _printable(clean.stdout),
            _printable(clean.stderr),
            clean.stdout_bytes,
            clean.stderr_bytes,
            codec.text(clean.worker, "worker"),
            clean.peak_memory_bytes,
            clean.note,
            int(clean.truncated),
            time.time(),
        )

        def work(conn: Connection) -> None:
            try:
                conn.execute(_UPSERT, values)
            except self._dialect.integrity_error as err:
                raise StoreError(f"cannot keep the output of trial {trial_id}: experiment id "
                                 f"{experiment_id} or its trial does not exist") from err

        self._write(work, "keep a trial's output")

    def trial_output(self, experiment_id: int, trial_id: int) -> TrialOutput | None:
        """The kept output of one trial, or None when none was kept."""

        def work(conn: Connection) -> TrialOutput | None:
            row = conn.execute(_SELECT, (experiment_id, trial_id)).fetchone()
            if row is None:
                return None
            return TrialOutput(attempt=row[0], stdout=row[1], stderr=row[2], stdout_bytes=row[3],
                               stderr_bytes=row[4], worker=row[5], peak_memory_bytes=row[6], note=row[7],
                               truncated=bool(row[8]))

        return self._read(work, None)

    def trial_id_range(self, experiment_id: int) -> tuple[int, int, int] | None:
        """``(lowest id, highest id, count)`` of the experiment's trials, or None without trials."""

        def work(conn: Connection) -> tuple[int, int, int] | None:
            low, high, count = conn.execute(
                "SELECT MIN(trial_id), MAX(trial_id), COUNT(*) FROM trials WHERE experiment_id = ?",
                (experiment_id,),
            ).fetchone()
            return None if not count else (int(low), int(high), int(count))

        return self._read(work, None)


def _printable(text: str) -> str:
    # A NUL a trial printed cannot be kept in PostgreSQL's text; it is shown as U+FFFD on both.
    return text.replace("\x00", "\ufffd")
