"""The trials of searches no driver works on, read once and kept between requests.

Every route of a search needs its trials: the sidebar's list (every few seconds, for every
search), the view's summary, table, plots. Reading 10,000 trials costs a good part of a second
in the server's worker threads, where the requests of one view opening run side by side; the
trials of a finished or interrupted search change only with its record (a resume updates it),
so they are read once per change. Those of an active search are read each time.

Example:
    >>> trials_of(store, store.experiment("mlp-lr"))  # doctest: +SKIP
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from hpnb.core.constraints import record_constraints
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.summary import SearchSummary, record_objectives, summarize
from hpnb.jupyter.server.views import search_state
from hpnb.views.ranking import SearchRanking, rank_trials

#: searches whose trials are kept: (store, id, updated, state) -> trials, the oldest dropped first.
_CACHE: dict[tuple[str, int, float, str], list[TrialRecord]] = {}
CACHE_SIZE = 8
_LOCK = threading.Lock()
#: what was computed from kept trials: (store, id, what) -> (the trials list, the value).
_DERIVED: dict[tuple[str, int, str], tuple[list[TrialRecord], Any]] = {}
T = TypeVar("T")


def trials_of(store: Store, record: ExperimentRecord) -> list[TrialRecord]:
    """The trials of ``record``, kept for a search no driver works on until its record changes."""
    if search_state(record).is_active:
        return store.trials(record.id)
    key = (str(store.path), record.id, record.updated, record.state)
    with _LOCK:
        found = _CACHE.pop(key, None)
        if found is not None:
            _CACHE[key] = found  # the most recently used last
    if found is None:
        found = store.trials(record.id)
        with _LOCK:
            while len(_CACHE) >= CACHE_SIZE:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = found
    return found


def kept_with_trials(store_path: object, record: ExperimentRecord, trials: list[TrialRecord], what: str,
                     compute: Callable[[list[TrialRecord]], T]) -> T:
    """``compute(trials)``, kept while the routes are handed the same ``trials`` list (as
    :func:`trials_of` does for a search no driver works on); ``what`` names the value (its kind
    and options), so that each search keeps one of each."""
    key = (str(store_path), record.id, what)
    with _LOCK:
        found = _DERIVED.get(key)
    if found is not None and found[0] is trials:
        value: T = found[1]
        return value
    value = compute(trials)
    with _LOCK:
        _DERIVED.pop(key, None)
        while len(_DERIVED) >= 4 * CACHE_SIZE:
            _DERIVED.pop(next(iter(_DERIVED)))
        _DERIVED[key] = (trials, value)
    return value


def search_ranking(store_path: object, record: ExperimentRecord, trials: list[TrialRecord]) -> SearchRanking:
    """The ranking of ``record``'s ``trials``, kept while the routes are handed the same list
    (:func:`trials_of` keeps it for a search no driver works on)."""
    return kept_with_trials(store_path, record, trials, "ranking",
                            lambda kept: rank_trials(kept, record_objectives(record),
                                                                     record_constraints(record)))


def search_summary(store: Store, record: ExperimentRecord) -> SearchSummary:
    """The summary of ``record`` now; that of a search no driver works on is kept with its trials
    (it no longer changes with time), so that the sidebar's polls do not recompute its best."""
    trials = trials_of(store, record)
    if search_state(record).is_active:
        return summarize(record, trials, time.time())
    return kept_with_trials(store.path, record, trials, "summary",
                            lambda kept: summarize(record, kept, time.time()))
