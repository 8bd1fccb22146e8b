"""The Pareto route of the Lab experiment view: two objectives of a search against each other.

``GET /hpnb/api/experiments/NAME/pareto?x=&y=&trial=`` answers
:func:`hpnb.core.analysis.pareto_view.pareto_view` as JSON: every scored trial a point with its
non-domination rank over all objectives (at most 2,000: the front, then an even sample of the
others), the front of the two shown objectives as a line, and the selected ``trial`` among the
points even when the sample left it out. ``x`` and ``y`` name objectives of the search (default:
its first two); anything else, or a search with one objective, is a 400 that names it.

Example:
    >>> from hpnb.core.objectives import Objective
    >>> checked_axis("latency", "x", (Objective("loss"), Objective("latency")), "s")
    'latency'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from hpnb.core.analysis.pareto_view import ParetoPoint, ParetoView, pareto_view
from hpnb.core.errors import HpnbError
from hpnb.core.objectives import Objective
from hpnb.core.store import ExperimentRecord, Store, TrialRecord
from hpnb.core.summary import record_objectives, trial_scores
from hpnb.jupyter.server.handlers import MAX_POSITION, HpnbHandler
from hpnb.jupyter.server.ranking import search_ranking
from hpnb.jupyter.server.trials_cache import trials_of


def checked_axis(raw: str | None, key: str, objectives: Sequence[Objective], name: str) -> str | None:
    """``raw`` when it names one of ``objectives``; a 400 naming it and the objectives otherwise."""
    if raw is None:
        return None
    names = [o.name for o in objectives]
    if raw not in names:
        raise web.HTTPError(400, f"{key}: {raw[:80]!r} is not an objective of {name}; "
                                 f"objectives: {', '.join(names)}")
    return raw


def _point_json(point: ParetoPoint) -> dict[str, Any]:
    return {"trial_id": point.trial_id, "x": point.x, "y": point.y, "rank": point.rank, "state": point.state}


def _point_of(trial_id: int, view: ParetoView, trials: Sequence[TrialRecord],
              objectives: Sequence[Objective], ranks: dict[int, int]) -> ParetoPoint | None:
    """Trial ``trial_id`` as a point of ``view`` (None when it has not every score)."""
    trial = next((t for t in trials if t.trial_id == trial_id), None)
    scores = None if trial is None else trial_scores(trial, objectives)
    if trial is None or scores is None or trial_id not in ranks:
        return None
    index = {o.name: i for i, o in enumerate(objectives)}
    return ParetoPoint(trial_id, scores[index[view.x.name]], scores[index[view.y.name]], ranks[trial_id],
                       trial.state)


def _view(record: ExperimentRecord, trials: Sequence[TrialRecord], x: str | None,
          y: str | None) -> ParetoView:
    objectives = record_objectives(record)
    if len(objectives) < 2:
        raise web.HTTPError(400, f"{record.name} has one objective ({objectives[0].name}); "
                                 "a Pareto front needs two or more (metrics:)")
    x, y = checked_axis(x, "x", objectives, record.name), checked_axis(y, "y", objectives, record.name)
    try:
        return pareto_view(trials, objectives, x, y)
    except HpnbError as err:  # x and y the same objective
        raise web.HTTPError(400, str(err)) from err


def pareto_body(store: Store, record: ExperimentRecord, trials: list[TrialRecord], x: str | None,
                y: str | None, selected: int | None) -> dict[str, Any]:
    """The Pareto view of ``record`` as JSON (see the module's docstring)."""
    view = _view(record, trials, x, y)
    ranking = search_ranking(store.path, record, trials)
    by_id = {p.trial_id: p for p in view.points}
    # the selected trial, and any of this pair's front whose overall rank the sample cut
    for trial_id in [*([] if selected is None else [selected]), *view.front]:
        if trial_id not in by_id:
            found = _point_of(trial_id, view, trials, ranking.objectives, ranking.pareto)
            if found is not None:
                by_id[trial_id] = found
    front = [by_id[i] for i in view.front if i in by_id]
    return {"x": view.x.to_dict(), "y": view.y.to_dict(), "objectives": ranking.objectives_json(),
            "points": [_point_json(p) for p in by_id.values()], "front": [_point_json(p) for p in front],
            "scored": view.scored, "front_size": sum(1 for rank in ranking.pareto.values() if rank == 0)}


class ParetoHandler(HpnbHandler):
    """200 with the view; 400 for a search with one objective or an unknown ``x``/``y``."""

    @web.authenticated
    @authorized
    async def get(self, name: str) -> None:
        name = self.checked_name(name)
        x, y = self.get_query_argument("x", None), self.get_query_argument("y", None)
        selected = self.int_argument("trial", None, 0, MAX_POSITION)

        def work(store: Store) -> dict[str, Any]:
            record = store.experiment(name)
            return pareto_body(store, record, trials_of(store, record), x, y, selected)

        self.write_json(await self.in_store(work))
