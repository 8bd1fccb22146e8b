"""Tornado handlers of the ``/hpnb/api`` routes.

Every route needs an authenticated Jupyter user (403 otherwise) allowed to use the
``hpnb`` resource. Names are checked against the store's name rule (400) and looked
up (404); paging arguments are checked integers in range (400). A store that cannot
be read (a damaged file, one kept locked, one written by a newer hpnb, a server that cannot be
reached) is a 503 whose JSON ``message`` says which store, why and what to do; a server that
went away is waited for a few seconds at most (:data:`~hpnb.core.store.pool.VIEW_RETRY_PERIOD`).
The store is opened read-only per request (the command routes add a command through a connection
of their own).

Routes:
    GET  /hpnb/api/experiments                         every experiment, newest first (with several
                                                       objectives: the front's size, not its trials)
    GET  /hpnb/api/experiments/NAME                    one experiment (its Pareto front too)
    GET  /hpnb/api/experiments/NAME/trials?offset=&limit=   trials with their objective values,
                                                       rank and Pareto rank
    GET  /hpnb/api/experiments/NAME/results?after=&limit=[&trial=ID]
    GET  /hpnb/api/experiments/NAME/trials/ID/logs      what trial ID printed, its error, worker, memory
                                                       (and, spanning several workers, its ``ranks``)
and, added with these by :mod:`hpnb.jupyter.server.routes`, the command routes
(:mod:`~hpnb.jupyter.server.command_route`), the view's plots (:mod:`~hpnb.jupyter.server.view_routes`),
a trial's artifacts and the dashboards' plotly.js.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, TypeVar

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from hpnb.core.rank_states import search_ranks
from hpnb.core.store import (
    ExperimentRecord,
    InvalidName,
    Store,
    StoreError,
    UnknownExperiment,
    UnknownTrial,
    validate_name,
)
from hpnb.core.store.pool import borrowed_store
from hpnb.core.trial_log import read_trial_log
from hpnb.jupyter.server.trials_cache import search_ranking, search_summary, trials_of
from hpnb.jupyter.server.views import experiment_json, result_json, search_state, trial_json

T = TypeVar("T")

#: largest page of trials or results one request returns.
MAX_PAGE = 1000
#: largest offset or cursor accepted (SQLite integers are 64-bit; this is far beyond any store).
MAX_POSITION = 2**53

_NAME_SEGMENT = r"(?P<name>[^/]+)"
_TRIAL_SEGMENT = r"(?P<trial>[^/]+)"


class HpnbHandler(APIHandler):
    """Base of the hpnb routes: store access off the event loop, checked arguments."""

    auth_resource = "hpnb"

    def initialize(self, store_path: Path | str) -> None:
        self.store_path = store_path

    async def in_store(self, work: Callable[[Store], T], executor: Executor | None = None) -> T:
        """Run ``work`` on a read-only store in a worker thread (of ``executor``, default the
        loop's), mapping store errors to HTTP ones.

        An unknown experiment or trial is a 404; any other store error (damaged, busy, too new) a 503.
        """

        def run() -> T:
            with borrowed_store(self.store_path) as store:
                return work(store)

        try:
            return await asyncio.get_running_loop().run_in_executor(executor, run)
        except (UnknownExperiment, UnknownTrial) as err:
            raise web.HTTPError(404, str(err)) from err
        except StoreError as err:
            raise web.HTTPError(503, str(err)) from err

    def checked_name(self, name: str) -> str:
        try:
            return validate_name(name)
        except InvalidName as err:
            raise web.HTTPError(400, str(err)) from err

    def checked_id(self, raw: str, key: str) -> int:
        """An id from the URL's path (a trial's, a command's): an integer from 0 to MAX_POSITION."""
        if not raw.isascii() or not raw.isdigit() or int(raw) > MAX_POSITION:
            raise web.HTTPError(400, f"{key}: {raw[:80]!r} is not allowed; use a {key} id, an integer "
                                     f"from 0 to {MAX_POSITION}")
        return int(raw)

    def int_argument(self, key: str, default: int | None, low: int, high: int) -> int | None:
        """Query argument ``key`` as an integer in [low, high]; ``default`` when absent."""
        raw = self.get_query_argument(key, None)
        if raw is None:
            return default
        if not raw.isascii() or not raw.isdigit() or int(raw) < low or int(raw) > high:
            raise web.HTTPError(400, f"{key}: {raw!r} is not allowed; use an integer from {low} to {high}")
        return int(raw)

    def write_json(self, body: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(json.dumps(body, allow_nan=False))


class SearchRoute(HpnbHandler):
    """A route of one search: ``GET`` checks the name and the query's arguments
    (:meth:`read_arguments`, which keeps them), then sends :meth:`answer` of the search's record
    as JSON, computed in a worker thread (an unknown search: a 404)."""

    @web.authenticated
    @authorized
    async def get(self, name: str) -> None:
        name = self.checked_name(name)
        self.read_arguments()
        self.write_json(await self.in_store(lambda store: self.answer(store, store.experiment(name))))

    def read_arguments(self) -> None:
        """Check and keep the query's arguments (a 400 that names a bad one)."""

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        raise NotImplementedError


class ExperimentsHandler(HpnbHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        def work(store: Store) -> list[dict[str, Any]]:
            # the list is polled: each search's front is left out (its size stays), the view reads it
            return [{key: value for key, value in experiment_json(e, search_summary(store, e)).items()
                     if key != "front"} for e in store.experiments()]

        self.write_json({"experiments": await self.in_store(work)})


class ExperimentHandler(SearchRoute):
    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        shown = experiment_json(record, search_summary(store, record), store.last_event(record.id, "slots"))
        return {**shown, "spec": record.spec}


class TrialsHandler(SearchRoute):
    def read_arguments(self) -> None:
        self.offset = self.int_argument("offset", 0, 0, MAX_POSITION) or 0
        self.limit = self.int_argument("limit", MAX_PAGE, 1, MAX_PAGE) or MAX_PAGE

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        trials, state = trials_of(store, record), search_state(record)
        ranking = search_ranking(store.path, record, trials)
        shown = trials[self.offset : self.offset + self.limit]
        page = [{**trial_json(t, state), **ranking.row(t)} for t in shown]
        return {"trials": page, "total": len(trials), "offset": self.offset, "limit": self.limit}


class ResultsHandler(SearchRoute):
    """Results in pages. Without ``trial``, ``after`` is the ``next`` cursor of the previous
    page (results in the order they were stored); with ``trial``, it is that trial's last seq."""

    def read_arguments(self) -> None:
        self.trial = self.int_argument("trial", None, 0, MAX_POSITION)
        self.after = self.int_argument("after", 0, 0, MAX_POSITION) or 0
        self.limit = self.int_argument("limit", MAX_PAGE, 1, MAX_PAGE) or MAX_PAGE

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        if self.trial is None:
            rows, cursor = store.results_since(record.id, self.after, self.limit)
        else:
            rows = store.results(record.id, trial_id=self.trial, after=self.after, limit=self.limit)
            cursor = rows[-1].seq if rows else self.after
        return {"results": [result_json(row) for row in rows], "next": cursor}


class TrialLogHandler(HpnbHandler):
    """One trial's log (:class:`hpnb.core.trial_log.TrialLog` as JSON) with its ``ranks`` (those of
    its latest attempt, :meth:`hpnb.core.rank_states.TrialRanks.to_json`; null for a trial of one
    worker); 404 names the trial ids the search has."""

    @web.authenticated
    @authorized
    async def get(self, name: str, trial: str) -> None:
        name, trial_id = self.checked_name(name), self.checked_id(trial, "trial")

        def work(store: Store) -> dict[str, Any]:
            record = store.experiment(name)
            ranks = search_ranks(store, record.id).get(trial_id)
            log = read_trial_log(store, record, trial_id, time.time()).to_json()
            return {**log, "ranks": None if ranks is None else ranks.to_json()}

        self.write_json(await self.in_store(work))


def search_routes(base: str) -> list[tuple[str, type[HpnbHandler]]]:
    """The routes of this module under ``base`` (``.../hpnb/api/experiments``)."""
    return [
        (base, ExperimentsHandler),
        (url_path_join(base, _NAME_SEGMENT), ExperimentHandler),
        (url_path_join(base, _NAME_SEGMENT, "trials"), TrialsHandler),
        (url_path_join(base, _NAME_SEGMENT, "results"), ResultsHandler),
        (url_path_join(base, _NAME_SEGMENT, "trials", _TRIAL_SEGMENT, "logs"), TrialLogHandler),
    ]
