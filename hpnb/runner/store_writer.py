"""The driver's buffered writes to the store.

Results, trial changes, trial output, events and the strategy's state are gathered and
written every :data:`FLUSH_INTERVAL` seconds (or sooner when many results
wait), so that the store costs the driver a few transactions a second
however fast trials report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.store import ResultRow, Store, StoreUnreachable
from hpnb.core.strategies.base import Strategy
from hpnb.core.trial_output import TrialOutput
from hpnb.runner.driven_trial import DrivenTrial

FLUSH_INTERVAL = 0.1
FLUSH_ROWS = 5_000
#: the strategy's state is saved at most this often (seconds) while trials start and end.
STRATEGY_SAVE_INTERVAL = 1.0


class StoreWriter:
    """Buffers one experiment's writes; only the driver thread calls it."""

    def __init__(self, store: Store, experiment_id: int, strategy: Strategy, stopping_rule: StoppingRule,
                 on_change: Callable[[], None],
                 on_checkpoint_stored: Callable[[int, str], None] = lambda trial_id, ref: None) -> None:
        self.store, self.experiment_id = store, experiment_id
        self.strategy, self.stopping_rule = strategy, stopping_rule
        self.on_change = on_change
        #: told of each checkpoint reference once the store has committed it
        self.on_checkpoint_stored = on_checkpoint_stored
        self.new_trials: list[DrivenTrial] = []
        self.trial_changes: dict[int, dict[str, Any]] = {}
        self.rows: list[ResultRow] = []
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.checkpoints: list[tuple[int, int | None, str]] = []
        self.outputs: list[tuple[int, TrialOutput]] = []
        #: (trial, attempt) whose output arrived: a note that it was lost must not replace it.
        self.outputs_seen: set[tuple[int, int]] = set()
        self.experiment_changes: dict[str, Any] = {}
        self.strategy_dirty = False
        #: save the strategy's state at the next flush, whatever the interval (lineage changed).
        self.save_state_now = False
        self.last_suggested = -1
        #: trials suggested but not yet observed by the strategy (kept up to date by the driver).
        self.pending_ids: set[int] = set()
        self.next_flush = time.monotonic() + FLUSH_INTERVAL
        self.next_strategy_save = 0.0

    def add_trial(self, trial: DrivenTrial) -> None:
        self.new_trials.append(trial)
        self.strategy_dirty = True

    def trial(self, trial_id: int, **fields: Any) -> None:
        self.trial_changes.setdefault(trial_id, {}).update(fields)

    def results(self, rows: list[ResultRow]) -> None:
        self.rows.extend(rows)

    def checkpoint(self, trial_id: int, step: int | None, ref: str) -> None:
        self.checkpoints.append((trial_id, step, ref))

    def output(self, trial_id: int, output: TrialOutput) -> None:
        """Keep what an attempt printed (a later attempt's output is not replaced by it)."""
        self.outputs_seen.add((trial_id, output.attempt))
        self.outputs.append((trial_id, output))

    def lost_output(self, trial_id: int, attempt: int, worker: str | None, reason: str) -> None:
        """Say why an attempt that never returned has no output, unless its output arrived."""
        if (trial_id, attempt) not in self.outputs_seen:
            note = f"no output was kept: the attempt did not return ({reason})"
            self.outputs.append((trial_id, TrialOutput(attempt=attempt, worker=worker, note=note)))

    def event(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append((kind, data))

    def experiment(self, **fields: Any) -> None:
        self.experiment_changes.update(fields)

    def flush_if_due(self) -> None:
        if len(self.rows) >= FLUSH_ROWS or time.monotonic() >= self.next_flush:
            self.flush()

    def flush(self, force_state: bool = False) -> None:
        """Write everything buffered in one transaction, then tell the listeners."""
        self.next_flush = time.monotonic() + FLUSH_INTERVAL
        changed = bool(self.new_trials or self.trial_changes or self.rows or self.events
                       or self.experiment_changes or self.checkpoints or self.outputs)
        stored = {trial_id: ref for trial_id, _, ref in self.checkpoints}  # each trial's newest
        kept = self._buffers()
        try:
            with self.store.batch():
                self._write_all(force_state)
        except StoreUnreachable:
            # A server store's connection was cut mid-batch: nothing was written; keep it all for the
            # next flush, whose start waits for the server to be back.
            self._restore(kept)
            return
        for trial_id, ref in stored.items():  # committed: the files they replace may go
            self.on_checkpoint_stored(trial_id, ref)
        if changed:
            self.on_change()

    def _buffers(self) -> tuple[Any, ...]:
        return (list(self.new_trials), {k: dict(v) for k, v in self.trial_changes.items()}, list(self.rows),
                list(self.outputs), list(self.checkpoints), list(self.events), dict(self.experiment_changes))

    def _restore(self, kept: tuple[Any, ...]) -> None:
        (self.new_trials, self.trial_changes, self.rows, self.outputs, self.checkpoints, self.events,
         self.experiment_changes) = kept
        self.save_state_now = self.strategy_dirty = True

    def _write_all(self, force_state: bool) -> None:
        store, exp = self.store, self.experiment_id
        for trial in self.new_trials:
            store.add_trial(exp, trial.trial_id, trial.params, parent=trial.parent)
        self.new_trials = []
        if self.rows:
            rows, self.rows = self.rows, []
            store.add_results(exp, rows)
        for trial_id, fields in self.trial_changes.items():
            store.update_trial(exp, trial_id, **fields)
        self.trial_changes = {}
        for trial_id, output in self.outputs:
            store.set_trial_output(exp, trial_id, output)
        self.outputs = []
        for trial_id, step, ref in self.checkpoints:
            store.set_checkpoint(exp, trial_id, step, ref)
        self.checkpoints = []
        for kind, data in self.events:
            store.add_event(exp, kind, data)
        self.events = []
        self._save_experiment(force_state)

    def _save_experiment(self, force_state: bool) -> None:
        changes = dict(self.experiment_changes)
        self.experiment_changes = {}
        now = time.monotonic()
        due = force_state or self.save_state_now or "state" in changes or now >= self.next_strategy_save
        if self.strategy_dirty and due:
            self.next_strategy_save = now + STRATEGY_SAVE_INTERVAL
            self.strategy_dirty = self.save_state_now = False
            changes["strategy_state"] = {"strategy": self.strategy.state_dict(),
                                         "last_suggested": self.last_suggested,
                                         "pending": sorted(self.pending_ids)}
            changes["scheduler_state"] = self.stopping_rule.state_dict()
        if changes:
            self.store.update_experiment(self.experiment_id, **changes)
