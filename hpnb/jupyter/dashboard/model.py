"""What the dashboard knows about a search, read from the store incrementally.

A :class:`DashboardModel` owns a read-only connection to the search's store
file (separate from the driver's, so reading never waits for its writes) and,
on each :meth:`DashboardModel.update`, reads the experiment, its trials and
only the result rows stored since the last update.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hpnb.core.rank_states import TrialRanks, latest_ranks
from hpnb.core.space import SearchSpace
from hpnb.core.store import ExperimentRecord, ResultRow, Store, TrialRecord
from hpnb.core.summary import ExperimentState, experiment_state, latest_event, with_limit
from hpnb.jupyter.dashboard import data

#: at most this many result rows are read per update (the rest come with the next one).
ROWS_PER_UPDATE = 20_000
#: the view's leaderboard holds the best trials only (the static summary's; the table pages itself).
LEADERBOARD_ROWS = 10


@dataclass(frozen=True)
class View:
    """Everything one redraw needs, computed at one moment."""

    header: data.Header
    trials: list[TrialRecord]
    #: the best trials (:data:`LEADERBOARD_ROWS`), for the static summary
    leaderboard: list[data.LeaderboardRow]
    failures: list[data.Failure]
    events: list[dict[str, Any]]
    metrics: list[str]
    #: the model's version it was drawn from (see :attr:`DashboardModel.version`)
    version: int = 0
    #: the version of its trials alone (see :attr:`DashboardModel.trials_version`)
    trials_version: int = 0
    #: trial id -> the ranks of its latest attempt, for trials that span several workers
    ranks: dict[int, TrialRanks] = field(default_factory=dict)


class DashboardModel:
    """The experiment, trials, curves and events of one search, as last read."""

    def __init__(self, store_path: Path | str, experiment_id: int, space: SearchSpace | None,
                 max_points: int = 300) -> None:
        self.store = Store(store_path, readonly=True)
        self.experiment_id = experiment_id
        self.space = space
        self.curves = data.Curves(max_points=max_points)
        self.cursor = 0
        self.experiment: ExperimentRecord | None = None
        self.trials: list[TrialRecord] = []
        self.events: list[dict[str, Any]] = []
        #: whether the last update left result rows unread (read by the next one).
        self.behind = False
        #: counts the updates that changed a trial or added results: what was drawn from an
        #: older version is drawn again, nothing else.
        self.version = 0
        #: counts the updates that changed a trial (what only the trials draw is drawn again).
        self.trials_version = 0
        self._trials_key: tuple[float, str] | None = None

    def update(self, results: bool = True) -> set[int]:
        """Read what changed (without ``results``: all but the new result rows, which then wait
        for the next update); returns the ids of trials with new results."""
        self.experiment = self.store.experiment_with_id(self.experiment_id)
        trials = self._read_trials(self.experiment)
        rows: list[ResultRow] = []
        if results:
            rows, self.cursor = self.store.results_since(self.experiment_id, self.cursor, ROWS_PER_UPDATE)
        self.behind = not results or len(rows) >= ROWS_PER_UPDATE
        self.events = self.store.events(self.experiment_id)
        changed = self.curves.add(rows)
        if trials is not self.trials and trials != self.trials:
            self.trials_version += 1
            changed_trials = True
        else:
            changed_trials = False
        if changed or changed_trials:
            self.version += 1
        self.trials = trials
        return changed

    def _read_trials(self, experiment: ExperimentRecord) -> list[TrialRecord]:
        """The trials, read again unless the search is over and its record unchanged since the
        last read (10,000 trials take a good part of a second to read and compare)."""
        key = (experiment.updated, experiment.state)
        over = not experiment_state(experiment, time.time()).is_active
        if key == self._trials_key and self.trials and over:
            return self.trials
        self._trials_key = key
        return self.store.trials(self.experiment_id)

    def view(self, state: str | None = None, now: float | None = None) -> View:
        """The current view; ``state`` replaces the stored state (e.g. INTERRUPTED, known to the handle)."""
        assert self.experiment is not None, "update() first"
        now = time.time() if now is None else now
        experiment = self.experiment
        header = data.header(experiment, self.trials, now)
        if state is not None and state != header.summary.state:
            header = replace(header, summary=replace(header.summary, state=ExperimentState(state)))
        header = replace(header, summary=with_limit(header.summary, latest_event(self.events, "slots")))
        metrics = list(self.curves.metrics)
        if experiment.metric in metrics:
            metrics.remove(experiment.metric)
        return View(
            header=header,
            trials=list(self.trials),
            leaderboard=data.leaderboard_rows(self.trials, header.ranking, now, header.summary.state,
                                              limit=LEADERBOARD_ROWS, constraints=header.summary.constraints),
            failures=data.failures(self.trials),
            events=list(self.events),
            metrics=[experiment.metric, *metrics],
            version=self.version,
            trials_version=self.trials_version,
            ranks=latest_ranks(self.events),
        )

    @property
    def param_names(self) -> list[str]:
        if self.space is not None:
            return [p.name for p in self.space.free]
        return sorted({name for trial in self.trials for name in trial.params})

    def close(self) -> None:
        self.store.close()
