"""Routes of the Lab experiment view's plots and table, bounded for large searches.

Routes (under ``/hpnb/api/experiments/NAME``):
    GET leaderboard?offset=&limit=&sort=&order=   a sorted page of trials, with each one's rank,
                                                  objective values and Pareto rank (and, for a trial
                                                  that spans several workers, its ``ranks``)
    GET history?order=trial|end                   the optimization history (thinned beyond 1,000)
    GET curves?trial=&points=                      curves of a few trials, thinned per trial
    GET parcoords?trial=                           the finished parallel coordinates: the best 1,000
                                                   trials, a sample of the rest, the selected one
    GET importance?evaluator=fanova|ped-anova      parameter importance per objective, or why none
    GET slices?x=&y=                               the metric against each parameter, and a contour
and ``GET /hpnb/api/compare?name=A&name=B`` (at most :data:`MAX_COMPARED` names). The Pareto
route is :mod:`hpnb.jupyter.server.pareto_route`'s.

The analyses themselves live in :mod:`hpnb.core.analysis`; this module checks the request,
bounds what is sent and shapes it as JSON.
"""

from __future__ import annotations

import time
from typing import Any, cast

from jupyter_server.auth.decorator import authorized
from tornado import web

from hpnb.core.analysis.analysis_errors import NotEnoughTrials
from hpnb.core.analysis.history import ORDERS, Order, optimization_history
from hpnb.core.errors import HpnbError
from hpnb.core.rank_states import search_ranks
from hpnb.core.spec import parse_spec
from hpnb.core.store import ExperimentRecord, ResultRow, Store, TrialRecord
from hpnb.core.summary import record_objectives, trial_state
from hpnb.core.trial import TrialState
from hpnb.jupyter.server.bounded import (
    compare_json,
    contour_json,
    parameter_kinds,
    parameter_order,
    slice_json,
    stored_space,
    thinned_curve,
    thinned_history,
)
from hpnb.jupyter.server.handlers import MAX_PAGE, MAX_POSITION, HpnbHandler, SearchRoute
from hpnb.jupyter.server.trials_cache import kept_with_trials, search_ranking, trials_of
from hpnb.jupyter.server.views import search_state, trial_json
from hpnb.views.columns import sort_key_names, sorted_trials, trial_duration
from hpnb.views.parcoords import parcoords_view, selected_line_view
from hpnb.views.sampling import curve_trials, parcoords_sample

#: the history sends every trial that set a new best and an even sample of the others, this many at most.
MAX_HISTORY = 1000
#: points per curve by default, and at most.
CURVE_POINTS, MAX_CURVE_POINTS = 200, 2000
#: searches one comparison may name.
MAX_COMPARED = 12
#: importance results kept, per search and number of finished trials.
_IMPORTANCE_CACHE: dict[tuple[str, str, int, int, str], dict[str, Any]] = {}


class InsightHandler(SearchRoute):
    """A view route of one search, with the argument checks they share."""

    def choice_argument(self, key: str, default: str, allowed: list[str] | tuple[str, ...]) -> str:
        raw = self.get_query_argument(key, default)
        if raw not in allowed:
            shown = ", ".join(allowed[:20]) + (", ..." if len(allowed) > 20 else "")
            raise web.HTTPError(400, f"{key}: {raw[:80]!r} is not allowed; allowed: {shown}")
        return raw

    def selected_trial(self) -> int | None:
        return self.int_argument("trial", None, 0, MAX_POSITION)


class LeaderboardHandler(InsightHandler):
    def read_arguments(self) -> None:
        self.offset = self.int_argument("offset", 0, 0, MAX_POSITION) or 0
        self.limit = self.int_argument("limit", 100, 1, MAX_PAGE) or 100
        self.order = self.choice_argument("order", "asc", ("asc", "desc"))
        self.raw_sort = self.get_query_argument("sort", "rank")

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        trials, state, now = trials_of(store, record), search_state(record), time.time()
        ranking = search_ranking(store.path, record, trials)
        kinds = parameter_kinds(record, trials)
        names = parameter_order(record, trials)
        allowed = sort_key_names(names, ranking.objectives)
        sort = self.choice_argument("sort", "rank", allowed) if self.raw_sort else "rank"
        page = sorted_trials(trials, ranking, sort, self.order == "desc", now)
        page = page[self.offset:self.offset + self.limit]
        gangs = kept_with_trials(store.path, record, trials, "ranks",
                                 lambda _: search_ranks(store, record.id))
        rows = [{**trial_json(t, state), **ranking.row(t), "duration": trial_duration(t, now),
                 **({"ranks": gangs[t.trial_id].to_json()} if t.trial_id in gangs else {})} for t in page]
        return {"rows": rows, "total": len(trials), "offset": self.offset, "limit": self.limit, "sort": sort,
                "order": self.order, "parameters": kinds, "columns": names, "metric": record.metric,
                "mode": record.mode, "objectives": ranking.objectives_json()}


class HistoryHandler(InsightHandler):
    def read_arguments(self) -> None:
        self.order = self.choice_argument("order", "trial", ORDERS)
        self.selected = self.selected_trial()

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        points = kept_with_trials(store.path, record, trials_of(store, record), f"history:{self.order}",
                                  lambda kept: optimization_history(kept, record.mode,
                                                                    order=cast(Order, self.order)))
        kept = thinned_history(points, MAX_HISTORY, self.selected)
        return {"order": self.order, "metric": record.metric, "mode": record.mode, "total": len(points),
                "points": [{"trial_id": p.trial_id, "state": p.state, "score": p.score, "end": p.end,
                            "best": p.best, "is_best": p.is_best} for p in kept]}


class CurvesHandler(InsightHandler):
    def read_arguments(self) -> None:
        self.selected = self.selected_trial()
        self.points = self.int_argument("points", CURVE_POINTS, 2, MAX_CURVE_POINTS) or CURVE_POINTS

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        trials, state = trials_of(store, record), search_state(record)
        chosen = curve_trials(trials, search_ranking(store.path, record, trials), state, self.selected)
        rows: dict[int, list[ResultRow]] = {trial.trial_id: [] for trial in chosen}
        for row in store.results(record.id, trial_ids=list(rows)):  # one query: one round trip to a server
            rows[row.trial_id].append(row)
        curves = []
        for trial in chosen:
            xs, ys = thinned_curve(rows[trial.trial_id], self.points)
            if xs:
                curves.append({"trial_id": trial.trial_id, "state": trial_state(trial, state),
                               "x": xs, "y": ys})
        with_steps = sum(1 for t in trials if t.last_step is not None)
        return {"metric": record.metric, "curves": curves, "trials_with_steps": with_steps}


class ParcoordsHandler(InsightHandler):
    """The finished parallel coordinates (:func:`hpnb.views.parcoords.parcoords_view`: the best
    1,000 trials, a sample of the rest and the selected ``trial``), which the Lab only draws;
    ``trace`` is null while no trial has every score. ``lines=selected``: the selected trial's line
    alone on the same axes, which the Lab draws over the lines it has when they match."""

    def read_arguments(self) -> None:
        self.selected = self.selected_trial()
        self.lines = self.choice_argument("lines", "all", ("all", "selected"))
        if self.lines == "selected" and self.selected is None:
            raise web.HTTPError(400, "lines: selected needs a trial")

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        trials = trials_of(store, record)
        ranking = search_ranking(store.path, record, trials)
        if self.lines == "selected" and self.selected is not None:
            view = selected_line_view(stored_space(record), trials, record.metric, ranking, self.selected)
        else:
            view = parcoords_view(stored_space(record), trials, record.metric, ranking, self.selected)
        return {"metric": record.metric, "mode": record.mode, "objectives": ranking.objectives_json(),
                "trace": view.trace if view.lines else None, "scored": view.scored, "best": view.best,
                "sampled": view.sampled}


def importance_body(store: Store, record: ExperimentRecord, trials: list[TrialRecord],
                    evaluator: str) -> dict[str, Any]:
    """Importance of ``record``'s parameters as JSON, kept until another trial completes:
    ``objectives`` (one bar set per objective: its name, mode and importance, most important
    first), ``importance`` the first objective's; both null with a ``message`` when there is none."""
    from hpnb.core.analysis.importance import importance_per_objective

    done = sum(1 for t in trials if t.state == TrialState.COMPLETED)
    key = (str(store.path), record.name, record.id, done, evaluator)
    if key in _IMPORTANCE_CACHE:
        return _IMPORTANCE_CACHE[key]
    objectives = record_objectives(record)
    body: dict[str, Any] = {"evaluator": evaluator, "metric": record.metric, "completed": done,
                            "importance": None, "objectives": None, "message": None}
    try:
        found = importance_per_objective(trials, parse_spec(record.spec).space, objectives, evaluator)
        sets = [{**o.to_dict(), "importance": [{"name": k, "value": v} for k, v in found[o.name].items()]}
                for o in objectives]
        body.update(importance=sets[0]["importance"], objectives=sets)
    except NotEnoughTrials as err:
        body["message"] = f"{err}. Importance is shown once enough trials finish."
    except HpnbError as err:
        body["message"] = str(err)
    if len(_IMPORTANCE_CACHE) > 64:
        _IMPORTANCE_CACHE.clear()
    _IMPORTANCE_CACHE[key] = body
    return body


class ImportanceHandler(InsightHandler):
    """200 with ``importance``, or with ``importance`` null and a ``message`` saying why there is
    none yet (too few completed trials)."""

    def read_arguments(self) -> None:
        from hpnb.core.analysis.importance import EVALUATORS

        self.evaluator = self.choice_argument("evaluator", "fanova", EVALUATORS)

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        return importance_body(store, record, trials_of(store, record), self.evaluator)


class SlicesHandler(InsightHandler):
    """The score against each parameter (at most :data:`MAX_HISTORY` trials per slice: the best
    and an even sample) and the contour of the two most important parameters, or of ``x``
    and ``y``; ``contour`` is null with a ``contour_message`` when it cannot be drawn."""

    def read_arguments(self) -> None:
        self.x, self.y = self.get_query_argument("x", None), self.get_query_argument("y", None)

    def answer(self, store: Store, record: ExperimentRecord) -> dict[str, Any]:
        from hpnb.core.analysis.slices import contour_data, contour_pair, parameter_slices

        trials, space = trials_of(store, record), parse_spec(record.spec).space
        ranking = search_ranking(store.path, record, trials)
        half = MAX_HISTORY // 2
        keep = {t.trial_id for t in parcoords_sample(trials, ranking, half, half).trials}
        slices = [slice_json(piece, keep) for piece in parameter_slices(trials, space)]
        body: dict[str, Any] = {"metric": record.metric, "mode": record.mode, "slices": slices,
                                "contour": None, "contour_message": None}
        importance = importance_body(store, record, trials, "fanova")["importance"] or []
        rated = {i["name"]: i["value"] for i in importance}
        pair = (self.x, self.y) if self.x and self.y else contour_pair(space, rated)
        if pair is None:
            body["contour_message"] = "a contour needs two varied parameters"
            return body
        try:
            body["contour"] = contour_json(contour_data(trials, space, pair[0], pair[1]), keep)
        except HpnbError as err:
            body["contour_message"] = str(err)
        return body


class CompareHandler(HpnbHandler):
    """``GET /hpnb/api/compare?name=A&name=B``: each search's best score so far against trial
    number and against seconds since it started (at most :data:`MAX_HISTORY` points each)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        from hpnb.core.analysis.compare import compare_searches

        names = list(dict.fromkeys(self.get_query_arguments("name")))
        if not names:
            raise web.HTTPError(400, "name: give the searches to compare, e.g. ?name=a&name=b")
        if len(names) > MAX_COMPARED:
            raise web.HTTPError(400, f"name: {len(names)} searches named; compare at most {MAX_COMPARED}")
        names = [self.checked_name(name) for name in names]

        def work(store: Store) -> dict[str, Any]:
            records = [store.experiment(name) for name in names]
            curves = compare_searches([(record, trials_of(store, record)) for record in records])
            return {"searches": [{**compare_json(curve, MAX_HISTORY),
                                  "objectives": [o.to_dict() for o in record_objectives(record)]}
                                 for curve, record in zip(curves, records, strict=True)]}

        self.write_json(await self.in_store(work))


def insight_routes(api: str) -> list[tuple[str, type[HpnbHandler]]]:
    """(pattern, handler) of every view route; ``api`` is the URL of ``/hpnb/api``."""
    from jupyter_server.utils import url_path_join

    base, segment = url_path_join(api, "experiments"), r"(?P<name>[^/]+)"
    per_search: list[tuple[str, type[HpnbHandler]]] = [
        ("leaderboard", LeaderboardHandler),
        ("history", HistoryHandler),
        ("curves", CurvesHandler),
        ("parcoords", ParcoordsHandler),
        ("importance", ImportanceHandler),
        ("slices", SlicesHandler),
    ]
    routes = [(url_path_join(base, segment, route), handler) for route, handler in per_search]
    return [*routes, (url_path_join(api, "compare"), CompareHandler)]
