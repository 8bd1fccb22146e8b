"""The ranks of trials that span several workers, as the driver's ``ranks`` events tell them: how
many, on which worker, in what state. Every view (the dashboard, the Lab's routes) reads them here.

The driver records an event of kind ``ranks`` each time a gang attempt's ranks change, with data
``{"trial": 3, "attempt": 0, "ranks": [{"rank": 0, "worker": "tcp://...", "state": "running"}, ...]}``.
A trial's newest event of its highest attempt is its current view.

Example:
    >>> events = [{"kind": "ranks", "data": {"trial": 3, "attempt": 0, "ranks": [
    ...     {"rank": 0, "worker": "tcp://127.0.0.1:40123", "state": "running"},
    ...     {"rank": 1, "worker": "tcp://127.0.0.1:40411", "state": "failed"}]}}]
    >>> latest_ranks(events)[3].summary()
    '2 ranks: 0 running on 127.0.0.1:40123, 1 failed on 127.0.0.1:40411'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hpnb.core.store import Store

#: the kind of the store events that tell a gang attempt's ranks.
RANKS_EVENT = "ranks"
#: a rank's states, in the order a rank goes through them (then one of the last four).
STATES = ("starting", "running", "completed", "failed", "stopped", "lost")
#: states that end a rank badly: the summary of a large gang still names the ranks in them.
TROUBLE = ("failed", "lost")
#: a summary lists each rank up to this many ranks; beyond, it counts them by state.
MAX_LISTED = 4


def worker_host(worker: str) -> str:
    """A worker's address as a user reads it: without its protocol (``127.0.0.1:40123``)."""
    return worker.split("://", 1)[-1]


@dataclass(frozen=True)
class RankState:
    """One rank of a trial's attempt: where it runs and its state (one of :data:`STATES`)."""

    rank: int
    worker: str
    state: str

    def text(self) -> str:
        """``0 running on 127.0.0.1:40123``."""
        return f"{self.rank} {self.state} on {worker_host(self.worker)}"


@dataclass(frozen=True)
class TrialRanks:
    """The ranks of one attempt of a trial, by rank."""

    trial_id: int
    attempt: int
    ranks: tuple[RankState, ...]

    @property
    def count(self) -> int:
        return len(self.ranks)

    def states(self) -> dict[str, int]:
        """How many ranks are in each state, in the order of :data:`STATES` (others after)."""
        counted = Counter(rank.state for rank in self.ranks)
        order = [*STATES, *sorted(set(counted) - set(STATES))]
        return {state: counted[state] for state in order if counted[state]}

    def summary(self) -> str:
        """One line: each rank's state and worker, or for a large gang the count in each state and
        the ranks that failed or were lost.

        Example:
            >>> TrialRanks(1, 2, (RankState(0, "tcp://a:1", "running"),)).summary()
            '1 rank (attempt 3): 0 running on a:1'
        """
        head = f"{self.count} rank{'s' if self.count != 1 else ''}"
        if self.attempt:
            head += f" (attempt {self.attempt + 1})"
        if self.count <= MAX_LISTED:
            return f"{head}: " + ", ".join(rank.text() for rank in self.ranks)
        counts = ", ".join(f"{n} {state}" for state, n in self.states().items())
        trouble = [rank.text() for rank in self.ranks if rank.state in TROUBLE][:MAX_LISTED]
        return f"{head}: {counts}" + (f" ({', '.join(trouble)})" if trouble else "")

    def label(self) -> str:
        """What a trial's row says of its gang: ``2 ranks``."""
        return f"{self.count} rank{'s' if self.count != 1 else ''}"

    def to_json(self) -> dict[str, Any]:
        """The JSON the Lab's routes send: ids, the summary line and each rank."""
        ranks = [{"rank": r.rank, "worker": r.worker, "host": worker_host(r.worker), "state": r.state}
                 for r in self.ranks]
        return {"trial_id": self.trial_id, "attempt": self.attempt, "summary": self.summary(), "ranks": ranks}


def _parsed(data: Any) -> TrialRanks | None:
    """The ranks an event's data tells, or None for data of another shape (never raises)."""
    if not isinstance(data, Mapping):
        return None
    trial: Any = data.get("trial")
    attempt, ranks = data.get("attempt", 0), data.get("ranks")
    if not _is_count(trial) or not _is_count(attempt) or not isinstance(ranks, list):
        return None
    parsed = []
    for at, entry in enumerate(ranks):
        if not isinstance(entry, Mapping):
            return None
        rank, worker, state = entry.get("rank", at), entry.get("worker"), entry.get("state")
        if not _is_count(rank) or not isinstance(state, str):
            return None
        parsed.append(RankState(int(rank), worker if isinstance(worker, str) else "-", state))
    return TrialRanks(int(trial), int(attempt), tuple(sorted(parsed, key=lambda r: r.rank)))


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def latest_ranks(events: Iterable[Mapping[str, Any]]) -> dict[int, TrialRanks]:
    """Trial id -> the ranks of its latest attempt, from ``events`` (oldest first, as
    :meth:`~hpnb.core.store.Store.events` gives them; events of other kinds and data of another
    shape are passed over). Within an attempt the newest event wins; a late event of an earlier
    attempt never hides a later one."""
    latest: dict[int, TrialRanks] = {}
    for event in events:
        if event.get("kind") != RANKS_EVENT:
            continue
        ranks = _parsed(event.get("data"))
        if ranks is None:
            continue
        before = latest.get(ranks.trial_id)
        if before is None or ranks.attempt >= before.attempt:
            latest[ranks.trial_id] = ranks
    return latest


def search_ranks(store: Store, experiment_id: int) -> dict[int, TrialRanks]:
    """:func:`latest_ranks` of an experiment's events in ``store`` (empty when no trial spans
    several workers)."""
    return latest_ranks(store.events(experiment_id))
