"""What the dashboard knows about a search, read from the store incrementally.

A :class:`DashboardModel` owns a read-only connection to the search's store
file (separate from the driver's, so reading never waits for its writes) and,
on each :meth:`DashboardModel.update`, reads the experiment, its trials and
only the result rows stored since the last update.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hpnb.core.space import SearchSpace
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.summary import ExperimentState
from hpnb.jupyter.dashboard import data

#: at most this many result rows are read per update (the rest come with the next one).
ROWS_PER_UPDATE = 20_000


@dataclass(frozen=True)
class View:
    """Everything one redraw needs, computed at one moment."""

    header: data.Header
    trials: list[TrialRecord]
    leaderboard: list[data.LeaderboardRow]
    failures: list[data.Failure]
    events: list[dict[str, Any]]
    metrics: list[str]


class DashboardModel:
    """The experiment, trials, curves and events of one search, as last read."""

    def __init__(self, store_path: Path, experiment_id: int, space: SearchSpace | None,
                 max_points: int = 300) -> None:
        self.store = Store(store_path, readonly=True)
        self.experiment_id = experiment_id
        self.space = space
        self.curves = data.Curves(max_points=max_points)
        self.cursor = 0
        self.experiment: ExperimentRecord | None = None
        self.trials: list[TrialRecord] = []
        self.events: list[dict[str, Any]] = []

    def update(self) -> set[int]:
        """Read what changed; returns the ids of trials with new results."""
        self.experiment = self.store.experiment_with_id(self.experiment_id)
        self.trials = self.store.trials(self.experiment_id)
        rows, self.cursor = self.store.results_since(self.experiment_id, self.cursor, ROWS_PER_UPDATE)
        self.events = self.store.events(self.experiment_id)
        return self.curves.add(rows)

    def view(self, state: str | None = None, now: float | None = None) -> View:
        """The current view; ``state`` replaces the stored state (e.g. INTERRUPTED, known to the handle)."""
        assert self.experiment is not None, "update() first"
        now = time.time() if now is None else now
        experiment = self.experiment
        header = data.header(experiment, self.trials, now)
        if state is not None and state != header.state:
            header = replace(header, state=state)
        metrics = list(self.curves.metrics)
        if experiment.metric in metrics:
            metrics.remove(experiment.metric)
        return View(
            header=header,
            trials=list(self.trials),
            leaderboard=data.leaderboard_rows(self.trials, experiment.mode, now,
                                              ExperimentState(header.state)),
            failures=data.failures(self.trials),
            events=list(self.events),
            metrics=[experiment.metric, *metrics],
        )

    @property
    def param_names(self) -> list[str]:
        if self.space is not None:
            return [p.name for p in self.space.free]
        return sorted({name for trial in self.trials for name in trial.params})

    def close(self) -> None:
        self.store.close()
