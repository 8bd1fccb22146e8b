"""What a tracker is fed: a search as its store holds it, and the results stored since the last read.

A tracker reads the store on its own read-only connection, so it never waits for the driver's
lock nor holds it: the driver writes as it always does, and a tracker sees each change once it is
committed. The same reads serve a live search, a resumed one and the export of a stored one.

Example:
    >>> feed = StoreFeed(store.path, record.id)   # doctest: +SKIP
    >>> update = feed.read()                        # doctest: +SKIP
    >>> len(update.rows), update.ended              # doctest: +SKIP
    (120, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hpnb.core.store import ExperimentRecord, ResultRow, Store, TrialRecord
from hpnb.core.trial import ExperimentState, TrialState

#: the most results one read hands over (a stored search is caught up in several reads).
READ_LIMIT = 20_000


@dataclass(frozen=True)
class Update:
    """The search, its trials, and the results stored since the previous read (in store order)."""

    record: ExperimentRecord
    trials: tuple[TrialRecord, ...]
    rows: tuple[ResultRow, ...]
    #: the read was full: more results may wait
    more: bool

    @property
    def ended(self) -> bool:
        """Whether the search was no longer running when read."""
        return self.record.state != ExperimentState.RUNNING.value


class StoreFeed:
    """Reads one search from the store (a connection of its own) and remembers how far it read."""

    def __init__(self, store_path: Path, experiment_id: int) -> None:
        self.store = Store(store_path, readonly=True)
        self.experiment_id = experiment_id
        self.cursor = 0

    def read(self, limit: int = READ_LIMIT) -> Update:
        """The search now, with the results stored since the last read.

        The search and its trials are read before the results: a trial seen ended has all its
        results in this read (they are stored before, or with, its end)."""
        record = self.store.experiment_with_id(self.experiment_id)
        trials = tuple(self.store.trials(self.experiment_id))
        rows, self.cursor = self.store.results_since(self.experiment_id, self.cursor, limit)
        return Update(record, trials, tuple(rows), more=len(rows) >= limit)

    def close(self) -> None:
        self.store.close()


class Unsent:
    """What a tracker has been fed and not sent yet: the newest update and, per trial, its reports.

    Example:
        >>> unsent = Unsent()
        >>> unsent.latest is None, unsent.pending
        (True, {})
    """

    def __init__(self) -> None:
        self.latest: Update | None = None
        self.pending: dict[int, list[ResultRow]] = {}

    def take(self, update: Update) -> None:
        """Remember ``update`` and the reports it brings (no I/O)."""
        self.latest = update
        for row in update.rows:
            self.pending.setdefault(row.trial_id, []).append(row)

    def wants_run(self, trial: TrialRecord) -> bool:
        """Whether a trial has anything to show yet (it started, or it reported)."""
        return trial.state != TrialState.PENDING.value or trial.trial_id in self.pending
