"""The Lab's routes of a search with constraints: each trial says whether it is feasible and why
not, infeasible trials come after the feasible ones, the summary names the constraints."""

from __future__ import annotations

import pytest

from hpnb.core.store import Store
from tests.jupyter.server.sample_store import SampleStore
from tests.jupyter.server.test_routes import get_json

pytestmark = pytest.mark.slow

NAME = "sized"


def _add_sized_search(sample: SampleStore) -> None:
    """loss 1 - i / 10 and size 10 i; trial 3 never reports its size; size at most 35."""
    spec = {"metric": "loss", "parameters": {"i": {"type": "int", "min": 0, "max": 9}},
            "constraints": {"size": {"max": 35.0}}}
    with Store(sample.path) as store:
        exp = store.create_experiment(NAME, spec, metric="loss", mode="min", strategy="tpe", budget=6,
                                      parallel=1)
        for i in range(6):
            store.add_trial(exp.id, i, {"i": i})
            metrics = {"loss": 1 - i / 10, **({} if i == 3 else {"size": 10.0 * i})}
            store.update_trial(exp.id, i, state="COMPLETED", value=1 - i / 10, best=1 - i / 10, start=1.0,
                               end=2.0, metrics=metrics)
        store.update_experiment(exp.id, state="COMPLETED")


async def test_the_trials_route_says_which_trials_are_infeasible_and_why(jp_fetch, sample_store):
    _add_sized_search(sample_store)
    body = await get_json(jp_fetch, NAME, "trials")
    rows = body["trials"]  # by trial id, each with its rank
    assert {r["trial_id"]: r["rank"] for r in rows} == {2: 1, 1: 2, 0: 3, 5: 4, 4: 5, 3: 6}
    assert [r["feasible"] for r in rows] == [True, True, True, False, False, False]
    because = {r["trial_id"]: r["infeasible_because"] for r in rows}
    assert because[3] == ["never reported size"] and because[5] == ["size = 50, not size <= 35"]


async def test_the_summary_names_the_constraints_and_the_best_feasible_trial(jp_fetch, sample_store):
    _add_sized_search(sample_store)
    body = await get_json(jp_fetch, NAME)
    summary = body.get("summary", body)
    assert summary["best"]["trial_id"] == 2
    assert summary["constraints"] == [{"metric": "size", "max": 35.0}] and summary["infeasible"] == 3
